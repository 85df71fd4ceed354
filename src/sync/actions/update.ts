import type { IssuePatch, IssueSnapshot } from "../../github/index.js";
import type { EngineEvent } from "../../shared/index.js";
import type { Intent } from "../schema.js";
import { ASSET_REMOVED_COMMENT } from "../plan/issue-comments.js";
import { commentKeyed, withRevision } from "../../shared/index.js";
import { commentText } from "../render/comment-key.js";
import { contentWritten, issueStateWritten } from "../transitions/outcome.js";
import { QueueClass, type ActionModule, type ActionOf, type SendIo } from "./types.js";
import { syncLabels } from "./write-helpers.js";

type Update = ActionOf<"update">;

/** What GitHub answered to one PATCH, and what followed it. */
interface UpdateAnswer {
  issue: IssueSnapshot;
  /** The comment of a state change was posted (or found already posted by its key). */
  commented: boolean;
  /** A follow-up that failed after the PATCH landed (the comment, the labels). */
  unfinished?: unknown;
}

function patchOf(action: Update): IssuePatch {
  const patch: IssuePatch = {};
  if (action.state !== undefined) patch.state = action.state;
  if (action.stateReason !== undefined) patch.stateReason = action.stateReason;
  if (action.content && action.hash !== undefined) {
    // Never `labels`: a PATCH would replace the whole list, people's labels with it.
    patch.title = action.content.title;
    patch.body = withRevision(action.content.body, action.hash);
  }
  return patch;
}

/** Posts a state change's comment under its key where GitHub answered from; only a proven absence throws. */
async function postComment(io: SendIo, intent: Intent, issue: IssueSnapshot): Promise<void> {
  try {
    await io.github.createComment(issue.repo, issue.number, commentText(intent));
  } catch (error) {
    const comments = await io.github.listComments(issue.repo, issue.number);
    if (!comments.some((c) => commentKeyed(c.body, intent.id))) throw error;
  }
}

/** One PATCH of an issue's state and/or content; a state change goes under an intent. */
export const updateAction: ActionModule<Update, UpdateAnswer> = {
  kind: "update",
  priority: (action) => (action.state !== undefined ? QueueClass.state : QueueClass.other),
  spendsGitHubBudget: () => true,
  mappingRepair: false,
  describe(action) {
    if (action.state) {
      // Named as its audit line names it (event-observers.ts): a state change is a close or a reopen.
      const named = action.state === "closed" ? "close" : "reopen";
      return {
        action: named,
        detail: `state=${action.state}${action.comment !== undefined ? " with a comment" : ""}`,
        // Its comment is a write of its own, with its own audit line.
        ...(action.comment !== undefined ? { then: [{ action: "comment", detail: `on the ${named}` }] } : {}),
      };
    }
    return action.content ? { detail: "content changed" } : {};
  },
  // A close reads first unless the change list is fresh, so a person's close between two writes is
  // seen; a reopen cannot overwrite anything a person can do, nor can a content PATCH.
  readFirst: (action) => action.state === "closed",
  intent(action) {
    if (action.state === undefined) return null;
    return {
      fields: {
        kind: "issue_state",
        threatId: action.threatId,
        repo: action.repo,
        number: action.number,
        target: action.state,
        ...(action.comment !== undefined ? { body: action.comment } : {}),
      },
      // Only a change GitHub surely refused is dropped; any other failure is left for recovery.
      onFailure: "keep-unless-refused",
      settleLazily: false,
    };
  },
  async send(action, io, intent) {
    const issue = await io.github.updateIssue(action.repo, action.number, patchOf(action));
    if (intent === null) {
      // Content alone: a failure of the labels fails the step, and the PATCH is sent again.
      if (action.content) await syncLabels(io, issue, action.content.labels);
      return { issue, commented: false };
    }
    // A state change landed: a failure from here on leaves the intent whatever its code.
    let commented = false;
    try {
      if (intent.body !== undefined) {
        await postComment(io, intent, issue);
        commented = true;
      }
      if (action.content) await syncLabels(io, issue, action.content.labels);
    } catch (error) {
      return { issue, commented, unfinished: error };
    }
    return { issue, commented };
  },
  settle(action, answer) {
    const { issue } = answer;
    const id = action.threatId;
    const at = { repo: issue.repo, number: issue.number };
    const events: EngineEvent[] = [];
    let record;
    if (action.state === undefined) {
      const hash = action.hash;
      if (hash !== undefined) record = (r: Parameters<typeof contentWritten>[0]) => contentWritten(r, hash);
      events.push({ type: "updated", threatId: id, issue: at });
    } else {
      // Closed for the asset's removal: a person's reopen wins, until the asset is restored.
      const removal = action.comment === ASSET_REMOVED_COMMENT;
      record = (r: Parameters<typeof issueStateWritten>[0]) =>
        issueStateWritten(r, { state: issue.state, hash: action.hash, removal });
      events.push({ type: action.state === "closed" ? "closed" : "reopened", threatId: id, issue: at });
      if (answer.commented) events.push({ type: "commented", threatId: id, issue: at });
    }
    return {
      ...(record ? { record } : {}),
      events,
      // An answer to a content PATCH showing a state the connector did not write is a person's.
      answered: { issue, mayShowPerson: action.state === undefined },
      ...(answer.unfinished !== undefined ? { unfinished: answer.unfinished } : {}),
      commit: action.state === undefined ? "checkpoint" : "none",
    };
  },
};
