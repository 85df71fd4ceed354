import { parseCommentKeys } from "../../../shared/index.js";
import { acceptanceFromComments, type AcceptanceTold } from "./comments.js";
import { acceptanceRecovered } from "./transitions.js";
import { QueueClass, type ActionModule } from "../../actions/types.js";
import type { FeatureAction } from "../../plan/plan.js";
import type { RecoverAcceptance } from "./actions.js";

/** The connector's own comments carry a comment key; people's quotes of them do not. */
const isOwnComment = (body: string): boolean => parseCommentKeys(body).length > 0;

/** A lost acceptance read back from the connector's comments, so it still ends on time. One read. */
const recoverAcceptance: ActionModule<RecoverAcceptance, AcceptanceTold | null> = {
  kind: "feature",
  priority: () => QueueClass.other,
  spendsGitHubBudget: () => false,
  // `reconcile` repairs what the state lost: this acceptance too (its runs ask the feature's module).
  mappingRepair: true,
  // A read, no write: the dry run lists writes.
  describe: () => ({
    action: "recover_acceptance",
    hidden: true,
    detail: "read the issue's comments for the acceptance's end",
  }),
  async send(action, io) {
    const comments = await io.github.listComments(action.repo, action.number);
    return acceptanceFromComments(
      comments.map((c) => c.body),
      isOwnComment,
    );
  },
  settle: (action, told) => ({
    record: (r) => acceptanceRecovered(r, action.version, told, new Date(action.now).toISOString()),
    events: [],
    commit: "checkpoint",
  }),
};

// Sound: the registry hands this module only the acceptance's `recover_acceptance` steps.
export const recoverAcceptanceAction = recoverAcceptance as unknown as ActionModule<FeatureAction, unknown>;
