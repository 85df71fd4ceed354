import type { Logger } from "../observability/index.js";
import type { EngineEvent, EngineEventType, EngineObserver } from "./events.js";

/**
 * The observers of engine events that every run has: the audit log and the counters. The counter
 * names are what /metrics and the `sync` summary have always shown; they are derived here, in one
 * mapping, and nowhere else.
 */

const COUNTER_OF: Record<EngineEventType, string> = {
  created: "issues_created",
  updated: "issues_updated",
  closed: "issues_state_changed",
  reopened: "issues_state_changed",
  commented: "comments_created",
  linked: "platform_links",
  verdict_sent: "platform_verdicts",
  created_minimal: "issues_created_minimal",
  adopted: "issues_adopted",
  refused: "work_refused",
  failed: "work_failed",
  rate_limited: "work_rate_limited",
  deleted_issue: "issues_deleted",
  transferred: "issues_transferred",
  threat_gone: "threats_gone_on_write",
};

/** The counter an event adds one to. */
export function counterOf(type: EngineEventType): string {
  return COUNTER_OF[type];
}

/** Counts each event under its counter name in the record a cycle reports (it is replaced per cycle). */
export function countingObserver(counters: () => Record<string, number>): EngineObserver {
  return (event) => {
    const into = counters();
    const name = COUNTER_OF[event.type];
    into[name] = (into[name] ?? 0) + 1;
  };
}

/** The `action` field of the audit line (contract, "Logs") for each write event. */
const AUDIT_ACTION: Partial<Record<EngineEventType, string>> = {
  created: "create",
  updated: "update",
  closed: "close",
  reopened: "reopen",
  commented: "comment",
  linked: "link",
  verdict_sent: "verdict",
};

/**
 * The audit line (contract, "Logs"): every write the connector makes to either side is logged at
 * `info` as one line with `action`, `threat_id` and `issue` (`owner/name#N`) where an issue is
 * concerned, so that an operator can answer "what did it do to this threat, and when" from the
 * logs alone. Events that are not writes make no audit line.
 */
export function auditObserver(logger: Logger): EngineObserver {
  return (event: EngineEvent) => {
    const action = AUDIT_ACTION[event.type];
    if (action === undefined) return;
    const issue = event.issue ? `${event.issue.repo}#${event.issue.number}` : undefined;
    logger.info(
      { audit: true, action, threat_id: event.threatId, ...(issue !== undefined ? { issue } : {}) },
      `${action} ${issue ?? "threat"}`,
    );
  };
}
