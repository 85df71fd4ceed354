import type { Intent } from "../schema.js";
import { checkpoint, nowIso, persist, type SyncContext } from "../context.js";
import { commentKeyed } from "../../shared/index.js";
import { commentText } from "../render/comment-key.js";
import { dropIntent, nextSeq, putIntent } from "../records/state-updates.js";

/**
 * Write-ahead intents: durable before a non-idempotent or state-changing GitHub write, so a crash
 * at any instant is resolved on restart by reading GitHub (recover.ts), never by writing again.
 */

/** What becomes of an intent whose `send` failed. */
interface IntentOutcome {
  /** Reads GitHub to learn whether a failed write landed all the same: true counts as success. */
  resolve?: (intent: Intent) => Promise<boolean>;
  /** Whether an unresolved failure leaves the intent for recovery instead of removing it. */
  keepOnFailure?: (error: unknown) => boolean;
  /** Whether a success may wait for the next checkpoint: only for writes recovery resolves by reading GitHub. */
  settleLazily?: boolean;
}

/** Runs `send` under a write-ahead intent, durable first; a failure as `IntentSpec` says. */
export async function withIntent(
  ctx: SyncContext,
  fields: Omit<Intent, "id" | "startedAt">,
  send: (intent: Intent) => Promise<void>,
  outcome: IntentOutcome = {},
): Promise<void> {
  const intent: Intent = { ...fields, id: `i${nextSeq(ctx)}`, startedAt: nowIso(ctx) };
  putIntent(ctx, intent);
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

/** Posts an intent's comment under its key; only a comment proven absent makes a failure throw. */
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
