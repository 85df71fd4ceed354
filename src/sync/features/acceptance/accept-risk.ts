import type { Threat } from "../../../platform/index.js";
import { parseCommentKeys, type EngineEvent } from "../../../shared/index.js";
import { utcDay } from "../../../shared/duration.js";
import { acceptanceEnd, riskAccepted, type AcceptanceEnd } from "./transitions.js";
import { issueStateIs, threatGone } from "../../transitions/outcome.js";
import { QueueClass, type ActionModule } from "../../actions/types.js";
import { unlessGone } from "../../actions/write-helpers.js";
import { statusAsAsked } from "../../actions/as-asked.js";
import type { GitHubGateway } from "../../../github/index.js";
import type { FeatureAction } from "../../plan/plan.js";
import type { AcceptRisk } from "./actions.js";

/** What the acceptance got: its end (from people's comments, read once) and the platform's answer. */
interface AcceptRiskAnswer {
  end: AcceptanceEnd;
  outcome: { gone: false; answer: Threat } | { gone: true };
}

/** A comment the connector posted carries its key; the rest are people's. */
function isPeoples(body: string): boolean {
  return parseCommentKeys(body).length === 0;
}

/** The end people's comments on the issue give the acceptance (one read of them). */
async function endOf(
  action: AcceptRisk,
  github: Pick<GitHubGateway, "listComments">,
): Promise<AcceptanceEnd> {
  const comments = await github.listComments(action.repo, action.number);
  return acceptanceEnd(
    comments.map((c) => c.body).filter(isPeoples),
    action.now,
    action.defaultMs,
    action.maxMs,
  );
}

/** A labelled "not planned" close: the end read from the comments once, the platform sent `accepted`. */
const acceptRisk: ActionModule<AcceptRisk, AcceptRiskAnswer> = {
  kind: "feature",
  priority: () => QueueClass.verdict,
  // A read of GitHub and a platform write: no GitHub write.
  spendsGitHubBudget: () => false,
  mappingRepair: false,
  describe: (action) => ({ action: "accept", detail: `status=accepted by=${action.person.login}` }),
  async send(action, io) {
    const end = await endOf(action, io.github);
    const note = action.note(utcDay(end.until));
    const outcome = await unlessGone(() =>
      io.platform.setStatus(action.threatId, "accepted", note || undefined),
    );
    return { end, outcome };
  },
  // A dry run reads the comments as the write would, and takes the PATCH as answered.
  async asAsked(action, io) {
    const end = await endOf(action, io.github);
    const note = action.note(utcDay(end.until));
    return { end, outcome: await statusAsAsked(io, action.threatId, "accepted", note || undefined) };
  },
  settle(action, { end, outcome }) {
    const id = action.threatId;
    const issue = { repo: action.repo, number: action.number };
    if (outcome.gone) {
      return {
        record: (r) => issueStateIs(threatGone(r), "closed"),
        events: [{ type: "threat_gone", threatId: id }],
        cache: "forget",
        finished: "person",
        commit: "checkpoint",
      };
    }
    const threat = outcome.answer;
    const events: EngineEvent[] = [];
    if (end.ignored !== null)
      events.push({ type: "acceptance_date_ignored", threatId: id, issue, detail: end.ignored });
    events.push({ type: "risk_accepted", threatId: id, issue, detail: utcDay(end.until) });
    return {
      record: (r) =>
        riskAccepted(
          r,
          { status: threat.status, updatedAt: threat.updated_at },
          { until: new Date(end.until).toISOString(), since: action.person.seenAt, by: action.person.login },
        ),
      events,
      cache: { threat },
      finished: "person",
      commit: "checkpoint",
    };
  },
};

// Sound: the registry hands this module only the acceptance's `accept_risk` steps (features/registry.ts).
export const acceptRiskAction = acceptRisk as unknown as ActionModule<FeatureAction, unknown>;
