import type { Logger } from "../observability/index.js";
import {
  countedAs,
  isWrite,
  type CounterName,
  type EngineObserver,
  type WriteEvent,
} from "../shared/index.js";

/** The observers the engine itself uses: the audit log and the cycle summary. */

/** What one cycle did, by counter name; only the names the cycle's events touched are present. */
export type CycleCounts = { [K in CounterName]?: number };

interface CycleSummary {
  observe: EngineObserver;
  /** A copy of the tally so far, its keys in the order their events first came. */
  counts(): CycleCounts;
}

/** A cycle's counts by `countedAs` (`lastCycle.counts`, `sync --json`): external harnesses read these keys. */
export function cycleSummary(): CycleSummary {
  const tally = new Map<CounterName, number>();
  return {
    observe(event) {
      const counted = countedAs(event);
      if (counted) tally.set(counted.name, (tally.get(counted.name) ?? 0) + counted.by);
    },
    counts() {
      const out: CycleCounts = {};
      for (const [name, n] of tally) out[name] = n;
      return out;
    },
  };
}

/** The `action` field of the audit line (contract, "Logs") for each write event. */
const AUDIT_ACTION: Record<WriteEvent["type"], string> = {
  created: "create",
  updated: "update",
  closed: "close",
  reopened: "reopen",
  commented: "comment",
  linked: "link",
  verdict_sent: "verdict",
  group_written: "group",
  attached: "attach",
  risk_accepted: "accept",
  expiry_warned: "warn",
  risk_expired: "expire",
  recurred: "recur",
  // The breach label is an update of the issue in the contract's vocabulary; `what` says which.
  sla_breach_labeled: "update",
  milestone_created: "milestone",
  // Setting an issue's milestone is a PATCH of the issue.
  milestone_set: "update",
  // Named by the event itself (the feature's audit action).
  feature_written: "feature",
};

/** Which update an `update` line was, where it was not the issue's content. */
const AUDIT_WHAT: Partial<Record<WriteEvent["type"], string>> = {
  sla_breach_labeled: "sla breach label",
  milestone_set: "sla milestone",
};

/** The audit line (contract, "Logs"): every write to either side is one `info` line; other events none. */
export function auditObserver(logger: Logger): EngineObserver {
  return (event) => {
    if (event.type === "acceptance_date_ignored") {
      // Said once: the close is processed once, and its acceptance then holds its end.
      const issue = `${event.issue.repo}#${event.issue.number}`;
      logger.warn(
        { threat_id: event.threatId, issue, reason: event.detail },
        "the end typed for a risk acceptance was not taken; the default applies",
      );
      return;
    }
    if (!isWrite(event)) return;
    const action = event.type === "feature_written" ? event.action : AUDIT_ACTION[event.type];
    const issue = `${event.issue.repo}#${event.issue.number}`;
    const what = AUDIT_WHAT[event.type];
    if (event.type === "verdict_sent") {
      // Which verdict (contract, "Logs"): the status sent, the one the platform answered with, and
      // the person whose close or reopen it carries, where GitHub said who.
      const { detail: status, answered, by } = event;
      logger.info(
        { audit: true, action, threat_id: event.threatId, issue, status, answered, by },
        `${action} ${issue}: ${status} sent, ${answered ?? "nothing"} answered, by ${by ?? "someone GitHub did not name"}`,
      );
      return;
    }
    logger.info(
      { audit: true, action, threat_id: event.threatId, issue, ...(what ? { what } : {}) },
      what ? `${action} ${issue} (${what})` : `${action} ${issue}`,
    );
  };
}
