import { nowIso, type SyncContext } from "../context.js";
import { enqueue } from "../records/queue.js";
import { acceptanceDue } from "../transitions/acceptance.js";

/**
 * The per-cycle sweep of risk acceptances (contract, "Risk acceptance"): their warnings and ends
 * are decided from the state, over only the threats that hold one (the index), with no read of
 * GitHub or the platform; the due ones are queued and the drain plans their step from the record.
 * Nothing due: nothing queued, nothing written. A threat whose last step GitHub refused for good
 * (a locked issue) is not queued again: `threatbridge retry` brings it back, as any refusal.
 * Answers how many it queued.
 */
export function sweepAcceptances(ctx: SyncContext): number {
  const policy = ctx.policy.acceptance;
  if (!policy) return 0;
  const now = ctx.clock.now();
  let queued = 0;
  for (const [threatId, acceptance] of ctx.index.acceptances) {
    if (!acceptanceDue(acceptance, now, policy.warnMs) || ctx.state.queue[threatId]) continue;
    const record = ctx.state.threats.get(threatId);
    if (!record?.issue || record.refused || record.gone) continue;
    enqueue(ctx, threatId, {}, nowIso(ctx));
    queued += 1;
  }
  return queued;
}
