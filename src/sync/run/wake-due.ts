import type { SyncContext } from "../context.js";
import { featuresFor } from "../features/registry.js";
import { enqueue } from "../records/queue.js";

/**
 * The queue's wake-up by the clock (a reconcile's `RequeueAfter`): each cycle, every configured
 * feature names the threats whose time may have come, and a threat is queued when the feature's
 * `nextDueAt` of its record is past, from the state alone (no read of GitHub or the platform).
 * Nothing due: nothing queued, nothing written. A threat whose last step GitHub refused for good is
 * not queued again: its refusal is on the record and in `status` (`threatbridge retry`).
 * Answers how many it queued.
 */
export function wakeDue(ctx: SyncContext): number {
  const now = ctx.clock.now();
  const at = new Date(now).toISOString();
  let queued = 0;
  for (const feature of featuresFor(ctx.config)) {
    const clock = feature.clock;
    if (!clock) continue;
    for (const threatId of clock.waiting(ctx, now)) {
      const record = ctx.state.threats.get(threatId);
      if (!record || record.refused) continue;
      const due = clock.nextDueAt(record, ctx);
      // Not `due > now`: a time that did not parse (NaN) is never due.
      if (due === null || !(due <= now)) continue;
      enqueue(ctx, threatId, clock.fromRecord ? { timed: true } : {}, at);
      queued += 1;
    }
  }
  return queued;
}
