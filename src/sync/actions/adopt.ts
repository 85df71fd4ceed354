import type { IssueSnapshot } from "../../github/index.js";
import { issueRecord } from "../transitions/issue-record.js";
import { issueAdopted } from "../transitions/outcome.js";
import { QueueClass, type ActionModule, type ActionOf } from "./types.js";

/** The platform's link names an issue the state does not know: it is taken over, never duplicated. */
export const adoptAction: ActionModule<ActionOf<"adopt">, IssueSnapshot | null> = {
  kind: "adopt",
  priority: () => QueueClass.create,
  spendsGitHubBudget: () => false,
  mappingRepair: true,
  describe: () => ({}),
  send: (action, io) => io.github.getIssue(action.repo, action.number),
  settle(action, issue) {
    // The linked issue answers 404/410: a person deleted it.
    if (!issue)
      return { deleted: { repo: action.repo, number: action.number }, events: [], commit: "checkpoint" };
    return {
      // Its marker's number is noted with what the features keep of it (registry `issueFound`).
      record: (r) => issueAdopted(r, issueRecord(issue)),
      found: issue,
      events: [
        { type: "adopted", threatId: action.threatId, issue: { repo: issue.repo, number: issue.number } },
      ],
      commit: "checkpoint",
    };
  },
};
