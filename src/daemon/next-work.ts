import type { SyncContext } from "../sync/index.js";

/** Shortest wait between two drain attempts that made no progress: never a busy loop. */
const MIN_WAIT_MS = 100;

/**
 * When queued work could next make progress, after a drain that did nothing: the write budget's
 * next slot when some entry is due now, else the end of the earliest back-off; +∞ when the queue
 * is empty (the next tick brings new work).
 */
export function nextWorkAt(ctx: SyncContext, now: number): number {
  let earliest = Number.POSITIVE_INFINITY;
  let dueNow = false;
  for (const entry of Object.values(ctx.state.queue)) {
    if (entry.notBefore === undefined || entry.notBefore <= now) dueNow = true;
    else earliest = Math.min(earliest, entry.notBefore);
  }
  if (dueNow) earliest = Math.min(earliest, ctx.github.budget.nextSlotAt());
  return Number.isFinite(earliest) ? Math.max(earliest, now + MIN_WAIT_MS) : earliest;
}
