import type { SyncContext } from "../context.js";
import { featureContext, featuresFor } from "../features/registry.js";
import type { FeatureClock } from "../features/types.js";
import { enqueue } from "../records/queue.js";

/**
 * The queue's wake-up by the clock (a reconcile's `RequeueAfter`): each configured feature clock
 * names the threats whose time may have come, and one whose `nextDueAt` is past is queued, from the
 * state alone. A threat whose last step was refused for good is not queued again. Answers the count.
 */
export function wakeDue(ctx: SyncContext): number {
  const now = ctx.clock.now();
  const at = new Date(now).toISOString();
  let queued = 0;
  for (const feature of featuresFor(ctx.config)) {
    const clock = feature.clock;
    if (!clock) continue;
    const waiting = clock.waiting
      ? clock.waiting(featureContext(ctx), now)
      : dueBy(ctx, feature.name, clock, now);
    for (const threatId of waiting) {
      const record = ctx.state.threats.get(threatId);
      if (!record || record.refused) continue;
      const due = clock.nextDueAt(record, featureContext(ctx));
      // Not `due > now`: a time that did not parse (NaN) is never due.
      if (due === null || !(due <= now)) continue;
      enqueue(ctx, threatId, clock.fromRecord ? { timed: true } : {}, at);
      queued += 1;
    }
  }
  return queued;
}

/** The features whose clock this context swept once already (by their stored columns). */
const sweptOnce = new WeakMap<SyncContext, Set<string>>();

/**
 * The threats of a feature's index of due times whose time has come. A `sync` sweeps once from the
 * stored columns (`scanDue`) without building the index; a `run` builds it at its second sweep.
 * Before the clock's `earliestDue`, nothing is swept.
 */
function dueBy(ctx: SyncContext, feature: string, clock: FeatureClock, nowMs: number): Iterable<string> {
  // Nothing stored is due before this: no row read, no index built (an idle cycle's usual case).
  if (clock.earliestDue !== undefined && clock.earliestDue(ctx.state.threats) > nowMs) return [];
  const scan = clock.scanDue;
  let swept = sweptOnce.get(ctx);
  if (swept === undefined) sweptOnce.set(ctx, (swept = new Set()));
  if (scan !== undefined && !swept.has(feature)) {
    swept.add(feature);
    const due: string[] = [];
    scan(ctx.state.threats, (threatId, dueMs) => {
      if (dueMs <= nowMs) due.push(threatId);
    });
    return due;
  }
  return dueFromIndex(ctx, feature, clock, nowMs);
}

function* dueFromIndex(
  ctx: SyncContext,
  feature: string,
  clock: FeatureClock,
  nowMs: number,
): Iterable<string> {
  const dues = ctx.index.dueTimes(feature, {
    dueAt: (record) => clock.nextDueAt(record, featureContext(ctx)),
    ...(clock.scanDue ? { scan: clock.scanDue } : {}),
  });
  for (const [threatId, due] of dues) if (due <= nowMs) yield threatId;
}
