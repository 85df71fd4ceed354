import type { SyncContext } from "../sync/index.js";

/** Shortest wait between two drain attempts that made no progress: never a busy loop. */
const MIN_WAIT_MS = 100;

/** When queued work could next progress: the budget's next slot, else the earliest back-off's end; +∞ when empty. */
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
