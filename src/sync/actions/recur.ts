import type { IssueSnapshot } from "../../github/index.js";
import { withRevision } from "../../shared/index.js";
import { issueRecord } from "../transitions/issue-record.js";
import { recurred } from "../transitions/acceptance.js";
import { QueueClass, type ActionModule, type ActionOf } from "./types.js";

/**
 * A new issue for a threat `unsolved` again after its issue was closed (`recurrence: new_issue`,
 * contract "Recurrence"). Its marker names the occurrence, and it goes out under a create intent
 * that carries it: a lost answer or a crash is resolved by looking for that occurrence's marker
 * (run/recover.ts), so each occurrence gets one issue, whatever crashes.
 */
export const recurAction: ActionModule<ActionOf<"recur">, { issue: IssueSnapshot }> = {
  kind: "recur",
  // It stands where a reopen would: a state change's class.
  priority: () => QueueClass.state,
  spendsGitHubBudget: () => true,
  mappingRepair: false,
  describe: (action) => ({
    labels: action.labels,
    assignees: action.assignees,
    detail: `occurrence=${action.occurrence} of ${action.previous.repo}#${action.previous.number}`,
  }),
  intent: (action) => ({
    fields: { kind: "create", threatId: action.threatId, repo: action.repo, occurrence: action.occurrence },
    onFailure: "find-by-marker",
    settleLazily: true,
  }),
  async send(action, io) {
    const issue = await io.github.createIssue(action.repo, {
      title: action.title,
      body: withRevision(action.body, action.hash),
      labels: action.labels,
      assignees: action.assignees,
    });
    return { issue };
  },
  settle(action, { issue }) {
    return {
      record: (r) => recurred(r, issueRecord(issue, action.hash), action.occurrence),
      events: [
        {
          type: "recurred",
          threatId: action.threatId,
          issue: { repo: issue.repo, number: issue.number },
          detail: `${action.previous.repo}#${action.previous.number}`,
        },
      ],
      commit: "none",
    };
  },
};
