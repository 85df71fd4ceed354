import { GitHubError } from "../../github/index.js";
import { checkpoint, type SyncContext } from "../context.js";
import { isFresh } from "../intake/fresh-poll.js";
import { notePersonChange } from "../intake/github.js";
import { postComment, withIntent } from "../run/intents.js";
import { ASSET_REMOVED_COMMENT } from "../plan/issue-comments.js";
import { withRevision } from "../render/revision.js";
import { putIntent, updateThreat } from "../records/state-updates.js";
import { contentWritten, issueStateWritten } from "../transitions/outcome.js";
import { QueueClass, type ActionModule, type ActionOf } from "./types.js";
import { repoint, surelyRefused, syncLabels } from "./write-helpers.js";

type Update = ActionOf<"update">;
type Patch = Parameters<SyncContext["github"]["updateIssue"]>[2];

function patchOf(action: Update): Patch {
  const patch: Patch = {};
  if (action.state !== undefined) patch.state = action.state;
  if (action.stateReason !== undefined) patch.stateReason = action.stateReason;
  if (action.content && action.hash !== undefined) {
    // Never `labels`: a PATCH would replace the whole list, people's labels with it.
    patch.title = action.content.title;
    patch.body = withRevision(action.content.body, action.hash);
  }
  return patch;
}

/**
 * Content alone: it never sends a state, and setting it twice gives the same issue, so no intent
 * is needed. An answer showing a state the connector did not write is a person's.
 */
async function updateContent(ctx: SyncContext, action: Update, repo: string, number: number): Promise<void> {
  const id = action.threatId;
  const issue = await ctx.github.updateIssue(repo, number, patchOf(action));
  const current = ctx.state.threats.get(id)?.issue;
  if (current) repoint(ctx, id, current, issue);
  if (action.content) await syncLabels(ctx, issue, action.content.labels);
  const hash = action.hash;
  if (hash !== undefined) updateThreat(ctx, id, (r) => contentWritten(r, hash));
  ctx.emit({ type: "updated", threatId: id, issue: { repo: issue.repo, number: issue.number } });
  await notePersonChange(ctx, id, issue);
  await checkpoint(ctx);
}

/**
 * A state change (and the comment saying why) runs under one intent. Unless GitHub surely refused
 * the change, a failure leaves the intent: the next cycle reads the issue (recover.ts) to learn
 * whether the change landed, so the connector's own close is never taken for a person's verdict,
 * and a comment whose state change landed is still posted.
 */
async function changeState(
  ctx: SyncContext,
  action: Update & { state: "open" | "closed" },
  repo: string,
  number: number,
): Promise<void> {
  const id = action.threatId;
  // Set once GitHub answered the PATCH: a failure after it (the comment, the labels) keeps the
  // intent whatever its code, since the state change surely landed.
  let patched = false;
  const fields = {
    kind: "issue_state" as const,
    threatId: id,
    repo,
    number,
    target: action.state,
    ...(action.comment !== undefined ? { body: action.comment } : {}),
  };
  await withIntent(
    ctx,
    fields,
    async (started) => {
      let intent = started;
      const issue = await ctx.github.updateIssue(repo, number, patchOf(action));
      patched = true;
      const current = ctx.state.threats.get(id)?.issue;
      if (current) repoint(ctx, id, current, issue);
      if (issue.repo !== repo || issue.number !== number) {
        intent = { ...intent, repo: issue.repo, number: issue.number };
        putIntent(ctx, intent);
      }
      // Closed for the asset's removal: a person who reopens it wins, and it is not closed (nor
      // commented on) again (issue 6, item 10). Restoring the asset clears this (plan-for.ts).
      const removal = action.comment === ASSET_REMOVED_COMMENT;
      updateThreat(ctx, id, (r) => issueStateWritten(r, { state: issue.state, hash: action.hash, removal }));
      ctx.emit({
        type: action.state === "closed" ? "closed" : "reopened",
        threatId: id,
        issue: { repo: issue.repo, number: issue.number },
      });
      if (intent.body !== undefined) await postComment(ctx, intent);
      if (action.content) await syncLabels(ctx, issue, action.content.labels);
    },
    // Only a change GitHub surely refused is dropped; any other failure is left for recover.ts.
    { keepOnFailure: (error) => patched || !surelyRefused(error) },
  );
}

/** One PATCH of an issue: its state (a close or reopen, with a comment) and/or its content. */
export const updateAction: ActionModule<Update> = {
  kind: "update",
  priority: (action) => (action.state !== undefined ? QueueClass.state : QueueClass.other),
  spendsGitHubBudget: () => true,
  mappingRepair: false,
  describe(action) {
    if (action.state) {
      return { detail: `state=${action.state}${action.comment !== undefined ? " with a comment" : ""}` };
    }
    return action.content ? { detail: "content changed" } : {};
  },
  async run(ctx, action) {
    const id = action.threatId;
    const state = action.state;
    if (state === undefined) return updateContent(ctx, action, action.repo, action.number);
    // The person wins (issue 6, item 1; README, "Conflicts"): a close is preceded by a read of the
    // issue unless the repository's change list was read since the connector's last write
    // (fresh-poll.ts), so that a person's close between two of its writes is seen before the
    // second (its reason is the person's, and it becomes a verdict). A reopen needs no read (issue
    // 7, item 4): the one change a person can make to an issue the connector closed is to reopen
    // it, and a reopen of an open issue changes nothing on GitHub, so there is nothing to overwrite;
    // the platform already holds `unsolved`, so no verdict is lost either. A content PATCH needs no
    // read: it never sends a state, and its answer shows one.
    let repo = action.repo;
    let number = action.number;
    if (state === "closed" && !isFresh(ctx, action.repo)) {
      const current = await ctx.github.getIssue(action.repo, action.number);
      if (current === null) {
        throw new GitHubError("not_found", `${action.repo}#${action.number} was deleted`, { status: 410 });
      }
      const known = ctx.state.threats.get(id)?.issue;
      if (known) repoint(ctx, id, known, current);
      if (await notePersonChange(ctx, id, current)) {
        await checkpoint(ctx);
        return; // planned again: the person's change becomes a verdict first
      }
      repo = current.repo;
      number = current.number;
    }
    await changeState(ctx, { ...action, state }, repo, number);
  },
};
