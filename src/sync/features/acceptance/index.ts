import type { Feature } from "../types.js";
import { acceptanceClock } from "./clock.js";
import { acceptanceListing, storedAcceptanceCounts } from "./status.js";
import { acceptancePolicyOf } from "./policy.js";
import { acceptanceDecider } from "./plan.js";
import { acceptanceAfterStatus, stepCommented } from "./transitions.js";
import { acceptRiskAction } from "./accept-risk.js";
import { expireRiskAction } from "./expire-risk.js";
import { acceptedCommentAction, warnExpiryAction } from "./comment-actions.js";
import { recoverAcceptanceAction } from "./recover-action.js";

/**
 * Risk acceptance (contract, "Risk acceptance") as a plug-in: a labelled "not planned" close becomes
 * `accepted`; its comment, warning and end follow from the record and the clock; one a lost state
 * forgot is read back from the issue's comments.
 */
export const acceptance: Feature = {
  name: "acceptance",
  configKey: "acceptance",
  record: { onStatusSeen: acceptanceAfterStatus, stepCommented },
  plan: {
    decide(config, at) {
      const policy = acceptancePolicyOf(config);
      if (!policy) return null;
      return acceptanceDecider({ policy, now: at.nowMs, newIssue: config.recurrence === "new_issue" });
    },
  },
  clock: acceptanceClock,
  status: {
    listing: acceptanceListing,
    counts: storedAcceptanceCounts,
    // Contract, "Workflow": risk acceptances held, and ending soon, from its status counts.
    gauges: [
      {
        name: "threatbridge_risk_acceptances",
        help: "Risk acceptances held (the platform has the threat as accepted until their end; 0 when acceptance is not configured)",
        count: "held",
      },
      {
        name: "threatbridge_risk_acceptances_ending_soon",
        help: "Risk acceptances that end within 7 days (0 when acceptance is not configured)",
        count: "endingWithin7Days",
      },
    ],
  },
  actions: {
    modules: {
      accept_risk: acceptRiskAction,
      expire_risk: expireRiskAction,
      step_comment: acceptedCommentAction,
      warn_expiry: warnExpiryAction,
      recover_acceptance: recoverAcceptanceAction,
    },
  },
};
