import type { Intent } from "../../state/index.js";
import { checkpoint, nowIso, persist, type SyncContext } from "../context.js";
import { commentKeyed } from "../../shared/index.js";
import { commentText } from "../render/comment-key.js";
import { dropIntent, nextSeq, putIntent } from "../records/state-updates.js";

/**
 * Write-ahead intents: recorded (durably) before a GitHub write that is not idempotent or that
 * changes an issue's state, and removed once its outcome is recorded, so that a crash at any
 * instant is resolved on restart by reading GitHub (recover.ts), never by writing again.
 */

function startIntent(ctx: SyncContext, fields: Omit<Intent, "id" | "startedAt">): Intent {
  const intent: Intent = { ...fields, id: `i${nextSeq(ctx)}`, startedAt: nowIso(ctx) };
  putIntent(ctx, intent);
  return intent;
}

/** What becomes of an intent whose `send` failed. */
interface IntentOutcome {
  /**
   * Reads GitHub to learn whether the write landed all the same (a lost response): true counts
   * as success. Without it, every failure is a failure.
   */
  resolve?: (intent: Intent) => Promise<boolean>;
  /**
   * Whether a failure (not resolved) leaves the intent for the next cycle's recovery (recover.ts)
   * instead of removing it. Without it, the intent is removed and the write may be sent again.
   */
  keepOnFailure?: (error: unknown) => boolean;
  /**
   * Whether a success may be committed with the next commit (a checkpoint) instead of at once.
   * Only for writes that recovery (recover.ts) resolves by reading GitHub: a crash before that
   * commit leaves the intent, and recovery finds what the write did instead of sending it again.
   */
  settleLazily?: boolean;
}

/**
 * Runs `send` under a write-ahead intent: the intent is persisted before anything goes out and
 * removed once `send` has recorded the outcome. On failure it is resolved by `resolve` if given,
 * else kept when `keepOnFailure` says so, else removed; the error is passed on unless resolved.
 * A `resolve` that itself fails leaves the intent, for recovery to read GitHub again.
 */
export async function withIntent(
  ctx: SyncContext,
  fields: Omit<Intent, "id" | "startedAt">,
  send: (intent: Intent) => Promise<void>,
  outcome: IntentOutcome = {},
): Promise<void> {
  const intent = startIntent(ctx, fields);
  await persist(ctx);
  try {
    await send(intent);
  } catch (error) {
    const landed = outcome.resolve ? await outcome.resolve(intent) : false;
    if (!landed) {
      if (!outcome.keepOnFailure?.(error)) {
        dropIntent(ctx, intent.id);
        await persist(ctx);
      }
      throw error;
    }
  }
  dropIntent(ctx, intent.id);
  if (outcome.settleLazily === true) await checkpoint(ctx);
  else await persist(ctx);
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
  const comments = await ctx.github.listComments(intent.repo, intent.number);
  return comments.some((c) => commentKeyed(c.body, intent.id));
}
