import type { SyncContext } from "../context.js";
import { featuresFor } from "../features/registry.js";
import type { FeatureClock } from "../features/types.js";
import { enqueue } from "../records/queue.js";

/**
 * The queue's wake-up by the clock (a reconcile's `RequeueAfter`): each cycle, every configured
 * feature with a clock names the threats whose time may have come (its own `waiting`, or the
 * engine's index of its due times: `dueBy`), and a threat is queued when the feature's
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
    const waiting = clock.waiting ? clock.waiting(ctx, now) : dueBy(ctx, feature.name, clock, now);
    for (const threatId of waiting) {
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

/** The features whose clock this context swept once already (by their stored columns). */
const sweptOnce = new WeakMap<SyncContext, Set<string>>();

/**
 * The threats of the engine's index of a feature's due times whose time has come (the index built
 * at its second sweep, from the clock's `scanDue` or its `nextDueAt` of every record). A clock
 * that reads the stored columns (`scanDue`) is swept from them directly the first time: a `sync`
 * sweeps once and exits, and an index of every open issue's due time built for one look was ~20 ms
 * and a map entry per threat of an idle `sync` at 30,000 threats; a long-running `run` builds it at
 * its second cycle and keeps it current from then on. A clock that knows a time before which
 * nothing stored is due (`earliestDue`, the SLA's: the store keeps it) is not swept before then.
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
    dueAt: (record) => clock.nextDueAt(record, ctx),
    ...(clock.scanDue ? { scan: clock.scanDue } : {}),
  });
  for (const [threatId, due] of dues) if (due <= nowMs) yield threatId;
}
