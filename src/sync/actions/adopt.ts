import { checkpoint } from "../context.js";
import { issueRecord } from "../transitions/issue-record.js";
import { markIssueDeleted } from "../run/refusals.js";
import { updateThreat } from "../records/state-updates.js";
import { issueAdopted } from "../transitions/outcome.js";
import { QueueClass, type ActionModule, type ActionOf } from "./types.js";

/** The platform's link names an issue the state does not know: it is taken over, never duplicated. */
export const adoptAction: ActionModule<ActionOf<"adopt">> = {
  kind: "adopt",
  priority: () => QueueClass.create,
  spendsGitHubBudget: () => false,
  mappingRepair: true,
  describe: () => ({}),
  async run(ctx, action) {
    const issue = await ctx.github.getIssue(action.repo, action.number);
    if (!issue) {
      // The linked issue answers 404/410: a person deleted it (issue 6, item 3).
      markIssueDeleted(ctx, action.threatId, action.repo, action.number);
      await checkpoint(ctx);
      return;
    }
    updateThreat(ctx, action.threatId, (r) => issueAdopted(r, issueRecord(issue)));
    ctx.emit({
      type: "adopted",
      threatId: action.threatId,
      issue: { repo: issue.repo, number: issue.number },
    });
    await checkpoint(ctx);
  },
};
