import type { IssueSnapshot } from "../github/index.js";
import type { Intent, IssueRecord } from "../state/index.js";
import { nowIso, persist, type SyncContext } from "./context.js";
import { parseRevision } from "./revision.js";
import { dropIntent, nextSeq, putIntent } from "./state-updates.js";

/**
 * Write-ahead intents: recorded (durably) before a GitHub write that is not idempotent or that
 * changes an issue's state, and removed once its outcome is recorded, so that a crash at any
 * instant is resolved on restart by reading GitHub (recover.ts), never by writing again.
 */

export function startIntent(ctx: SyncContext, fields: Omit<Intent, "id" | "startedAt">): Intent {
  const intent: Intent = { ...fields, id: `i${nextSeq(ctx)}`, startedAt: nowIso(ctx) };
  putIntent(ctx, intent);
  return intent;
}

/**
 * Runs `send` under an intent. When it fails, `resolve` reads GitHub to learn whether the write
 * landed all the same (a lost response): if it did, that counts as success; if it did not, the
 * error is passed on and the write may be sent again later.
 */
export async function underIntent(
  ctx: SyncContext,
  fields: Omit<Intent, "id" | "startedAt">,
  send: (intent: Intent) => Promise<void>,
  resolve: (intent: Intent) => Promise<boolean>,
): Promise<void> {
  const intent = startIntent(ctx, fields);
  await persist(ctx);
  try {
    await send(intent);
  } catch (error) {
    if (!(await resolve(intent))) {
      dropIntent(ctx, intent.id);
      await persist(ctx);
      throw error;
    }
  }
  dropIntent(ctx, intent.id);
  await persist(ctx);
}

/** What the state remembers of an issue; `hash` from the revision line when not given. */
export function issueRecord(issue: IssueSnapshot, hash?: string): IssueRecord {
  return {
    repo: issue.repo,
    number: issue.number,
    url: issue.url,
    state: issue.state,
    hash: hash ?? parseRevision(issue.body) ?? "",
  };
}

/** The key that makes a comment findable after a lost response. */
export function commentKey(intentId: string): string {
  return `<!-- threatbridge:comment=${intentId} -->`;
}

/** A comment as posted: its text and the key of the intent it was sent under. */
export function commentText(intent: Intent): string {
  return `${intent.body ?? ""}\n\n${commentKey(intent.id)}`;
}

/**
 * Posts the comment of an intent under the intent's key. A failure is resolved by looking for the
 * key among the issue's comments; only a comment proven absent makes it throw (and the intent stays).
 */
export async function postComment(ctx: SyncContext, intent: Intent): Promise<void> {
  if (intent.number === undefined) return;
  try {
    await ctx.github.createComment(intent.repo, intent.number, commentText(intent));
    ctx.emit({
      type: "commented",
      threatId: intent.threatId,
      issue: { repo: intent.repo, number: intent.number },
    });
  } catch (error) {
    if (!(await commentPosted(ctx, intent))) throw error;
  }
}

/** Whether the comment of an intent is on the issue (found by its key). */
export async function commentPosted(ctx: SyncContext, intent: Intent): Promise<boolean> {
  if (intent.number === undefined) return false;
  const key = commentKey(intent.id);
  const comments = await ctx.github.listComments(intent.repo, intent.number);
  return comments.some((c) => c.body.includes(key));
}
