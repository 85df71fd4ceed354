import type { IssueSnapshot } from "../../../github/index.js";
import { withRevision, type EngineEvent } from "../../../shared/index.js";
import { issueRecord } from "../../transitions/issue-record.js";
import { createdAsAsked } from "../../actions/as-asked.js";
import { QueueClass, type ActionModule } from "../../actions/types.js";
import type { FeatureAction } from "../../plan/plan.js";
import { postStepComment, stepCommentIntent } from "../step-comment.js";
import { recurred, recurrenceNoted } from "./transitions.js";
import type { RecurAction, RecurNote } from "./actions.js";

/** A recurring threat's new issue, under a create intent naming its occurrence: one issue each, ever. */
const recur: ActionModule<RecurAction, { issue: IssueSnapshot }> = {
  kind: "feature",
  // It stands where a reopen would: a state change's class.
  priority: () => QueueClass.state,
  spendsGitHubBudget: () => true,
  mappingRepair: false,
  describe: (action) => ({
    action: "recur",
    labels: action.labels,
    assignees: action.assignees,
    detail: `occurrence=${action.occurrence} of ${action.previous.repo}#${action.previous.number}`,
  }),
  intent: (action) => ({
    fields: { kind: "create", threatId: action.threatId, repo: action.repo, markerNumber: action.occurrence },
    onFailure: "feature-recover",
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
  // A dry run's new issue: the number no GitHub issue has (its lines show it as new).
  asAsked: (action, io) =>
    Promise.resolve({
      issue: createdAsAsked(io, action.threatId, {
        repo: action.repo,
        title: action.title,
        body: withRevision(action.body, action.hash),
        labels: action.labels,
        assignees: action.assignees,
      }),
    }),
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

/** The comment on the old issue naming the new one, under its keyed comment intent. */
const note: ActionModule<RecurNote, { posted: true }> = {
  kind: "feature",
  priority: () => QueueClass.create,
  spendsGitHubBudget: () => true,
  mappingRepair: false,
  describe: () => ({ action: "comment", detail: "names the new issue" }),
  intent: (action) => stepCommentIntent(action, "recur"),
  send: postStepComment,
  asAsked: () => Promise.resolve({ posted: true }),
  settle(action) {
    const events: EngineEvent[] = [
      { type: "commented", threatId: action.threatId, issue: { repo: action.repo, number: action.number } },
    ];
    return { record: (r) => recurrenceNoted(r, "recur"), events, commit: "none" };
  },
};

// Sound: the registry hands these modules only the recurrence's own steps (features/registry.ts).
export const recurAction = recur as unknown as ActionModule<FeatureAction, unknown>;
export const recurNoteAction = note as unknown as ActionModule<FeatureAction, unknown>;
