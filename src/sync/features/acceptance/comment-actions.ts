import type { EngineEvent } from "../../../shared/index.js";
import { QueueClass, type ActionModule } from "../../actions/types.js";
import type { FeatureAction } from "../../plan/plan.js";
import { postStepComment, stepCommentIntent } from "../step-comment.js";
import { stepCommented } from "./transitions.js";
import type { AcceptedComment, WarnExpiry } from "./actions.js";

/** The comment naming the acceptance's end (its step `accept`), under its keyed comment intent. */
const accepted: ActionModule<AcceptedComment, { posted: true }> = {
  kind: "feature",
  priority: () => QueueClass.other,
  spendsGitHubBudget: () => true,
  mappingRepair: false,
  describe: () => ({ action: "comment", detail: "the acceptance's end" }),
  intent: (action) => stepCommentIntent(action, "accept"),
  send: postStepComment,
  asAsked: () => Promise.resolve({ posted: true }),
  settle(action) {
    const events: EngineEvent[] = [
      { type: "commented", threatId: action.threatId, issue: { repo: action.repo, number: action.number } },
    ];
    return { record: (r) => stepCommented(r, "accept"), events, commit: "none" };
  },
};

/** The warning before the end (its step `warn`). */
const warn: ActionModule<WarnExpiry, { posted: true }> = {
  kind: "feature",
  priority: () => QueueClass.other,
  spendsGitHubBudget: () => true,
  mappingRepair: false,
  describe: () => ({ action: "warn", detail: "the acceptance ends soon" }),
  intent: (action) => stepCommentIntent(action, "warn"),
  send: postStepComment,
  asAsked: () => Promise.resolve({ posted: true }),
  settle(action) {
    const events: EngineEvent[] = [
      {
        type: "expiry_warned",
        threatId: action.threatId,
        issue: { repo: action.repo, number: action.number },
      },
    ];
    return { record: (r) => stepCommented(r, "warn"), events, commit: "none" };
  },
};

// Sound: the registry hands these modules only the acceptance's own steps (features/registry.ts).
export const acceptedCommentAction = accepted as unknown as ActionModule<FeatureAction, unknown>;
export const warnExpiryAction = warn as unknown as ActionModule<FeatureAction, unknown>;
