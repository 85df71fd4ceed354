import type { GitHubGateway } from "../../../github/index.js";
import type { Intent } from "../../schema.js";
import { QueueClass, type ActionModule, type Settlement } from "../../actions/types.js";
import type { FeatureAction } from "../../plan/plan.js";
import { commentBody, lastShown, shownHash } from "./analyst.js";
import { NOTES } from "./slice.js";
import { noteShown, type NoteCommentAction } from "./to-github.js";
import { noteIntent } from "./write-action.js";
import type { FeatureContext } from "../types.js";

/**
 * The comment showing the analyst's changed text (contract, "The analyst's words on GitHub"), under
 * an intent (data `c:<hash>`): after a lost answer or a crash the issue's comments are read first,
 * so the same text is never posted twice in a row and one that did not land is posted again.
 */
const PREFIX = "c:";

export function isCommentIntent(intent: Intent): boolean {
  return intent.feature === NOTES && intent.data?.startsWith(PREFIX) === true;
}

type Answer =
  | { kind: "posted" }
  /** The issue shows this text already: nothing posted. */
  | { kind: "shown" };

const asComment = (action: FeatureAction): NoteCommentAction => action as NoteCommentAction;

/** What the issue last showed: its last comment with a note line, else its body. */
async function shownOnIssue(github: GitHubGateway, action: NoteCommentAction): Promise<string> {
  const fromComments = lastShown(await github.listComments(action.repo, action.number));
  if (fromComments !== undefined) return fromComments;
  if (action.body !== undefined) return action.body;
  const issue = await github.getIssue(action.repo, action.number);
  return (issue ? shownHash(issue.body) : undefined) ?? "";
}

export const noteCommentAction: ActionModule<FeatureAction, Answer> = {
  kind: "feature",
  priority: () => QueueClass.other,
  spendsGitHubBudget: () => true,
  mappingRepair: false,
  describe: (action) => {
    const comment = asComment(action);
    return {
      action: "note_comment",
      detail:
        comment.text === ""
          ? "the platform note was cleared"
          : `the platform note (${comment.text.length} characters)`,
    };
  },
  intent: (action) => noteIntent(asComment(action), `${PREFIX}${asComment(action).hash}`),
  async send(action, io) {
    const comment = asComment(action);
    if (comment.check && (await shownOnIssue(io.github, comment)) === comment.hash) return { kind: "shown" };
    await io.github.createComment(
      comment.repo,
      comment.number,
      commentBody(comment.text, comment.hash, comment.changedAt),
    );
    return { kind: "posted" };
  },
  asAsked: () => Promise.resolve({ kind: "posted" }),
  settle(action, answer): Settlement {
    const comment = asComment(action);
    const issue = { repo: comment.repo, number: comment.number };
    return {
      record: (r) => noteShown(r, comment.hash),
      events:
        answer.kind === "posted"
          ? [
              {
                type: "feature_written",
                threatId: comment.threatId,
                issue,
                action: "note_comment",
                detail: comment.hash,
              },
            ]
          : [],
      commit: "checkpoint",
    };
  },
};

/** A comment intent left by a crash: landed when the issue's last note line shows its hash, else planned again. */
export async function recoverComment(ctx: FeatureContext, intent: Intent): Promise<boolean> {
  const hash = intent.data?.slice(PREFIX.length);
  if (hash === undefined || intent.number === undefined) return false;
  const comments = await ctx.github.listComments(intent.repo, intent.number);
  if (lastShown(comments) !== hash) return false;
  ctx.updateThreat(intent.threatId, (r) => noteShown(r, hash));
  return true;
}
