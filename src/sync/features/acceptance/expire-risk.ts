import type { Threat } from "../../../platform/index.js";
import { riskExpired } from "./transitions.js";
import { threatGone } from "../../transitions/outcome.js";
import { QueueClass, type ActionModule } from "../../actions/types.js";
import { unlessGone } from "../../actions/write-helpers.js";
import { statusAsAsked } from "../../actions/as-asked.js";
import type { FeatureAction } from "../../plan/plan.js";
import type { ExpireRisk } from "./actions.js";

/** An acceptance's end: `PATCH {status: unsolved}`, then the issue reopens; sent twice, the same status. */
const expireRisk: ActionModule<ExpireRisk, { gone: false; answer: Threat } | { gone: true }> = {
  kind: "feature",
  priority: () => QueueClass.other,
  spendsGitHubBudget: () => false,
  mappingRepair: false,
  describe: () => ({ action: "expire", detail: "status=unsolved (the acceptance ended)" }),
  send: (action, io) => unlessGone(() => io.platform.setStatus(action.threatId, "unsolved")),
  asAsked: (action, io) => statusAsAsked(io, action.threatId, "unsolved"),
  settle(action, outcome) {
    const id = action.threatId;
    if (outcome.gone) {
      return {
        record: threatGone,
        events: [{ type: "threat_gone", threatId: id }],
        cache: "forget",
        commit: "checkpoint",
      };
    }
    const threat = outcome.answer;
    return {
      record: (r) => riskExpired(r, { status: threat.status, updatedAt: threat.updated_at }),
      events: [{ type: "risk_expired", threatId: id, issue: { repo: action.repo, number: action.number } }],
      cache: { threat },
      commit: "checkpoint",
    };
  },
};

// Sound: the registry hands this module only the acceptance's `expire_risk` steps (features/registry.ts).
export const expireRiskAction = expireRisk as unknown as ActionModule<FeatureAction, unknown>;
