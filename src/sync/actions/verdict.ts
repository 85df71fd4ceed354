import type { Threat } from "../../platform/index.js";
import { issueStateIs, threatGone, verdictSent } from "../transitions/outcome.js";
import { QueueClass, type ActionModule, type ActionOf } from "./types.js";
import { personLogin, unlessGone } from "./write-helpers.js";

/** A person's close or reopen sent to the platform as a verdict (contract: people's actions first). */
export const verdictAction: ActionModule<
  ActionOf<"verdict">,
  { gone: false; answer: Threat } | { gone: true }
> = {
  kind: "verdict",
  priority: () => QueueClass.verdict,
  spendsGitHubBudget: () => false,
  mappingRepair: false,
  // The issue the person changed (contract: dry-run lines name `repository`/`issue` where known).
  describe: (action) => ({
    repository: action.person.repo,
    issue: action.person.number,
    detail: `status=${action.status}`,
  }),
  send: (action, io) =>
    unlessGone(() => io.platform.setStatus(action.threatId, action.status, action.note || undefined)),
  settle(action, outcome) {
    const id = action.threatId;
    const issueState = action.person.event === "closed" ? "closed" : "open";
    if (outcome.gone) {
      // The threat left the API since the person acted: no verdict; the issue stays as the person left it.
      return {
        record: (r) => issueStateIs(threatGone(r), issueState),
        events: [{ type: "threat_gone", threatId: id }],
        cache: "forget",
        finished: "person",
        commit: "checkpoint",
      };
    }
    const threat = outcome.answer;
    return {
      // The response's status is the recalculated effective status (spec, PATCH rule 3).
      record: (r) => verdictSent(r, { status: threat.status, updatedAt: threat.updated_at }, issueState),
      events: [
        {
          type: "verdict_sent",
          threatId: id,
          issue: { repo: action.person.repo, number: action.person.number },
          detail: action.status,
          answered: threat.status,
          by: personLogin(action.person.login),
        },
      ],
      cache: { threat },
      finished: "person",
      commit: "checkpoint",
    };
  },
};
