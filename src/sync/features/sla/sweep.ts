import type { SyncContext } from "../../context.js";
import { enqueue } from "../../records/queue.js";
import { breachDue } from "./transitions.js";

/**
 * The SLA's time-driven work (contract, "Workflow": SLA): once per cycle, the open issues past
 * their due date whose breach label is not added yet are queued, from the engine's index of SLA
 * due times (records/threat-index.ts), never from a scan of every record and never from a read of
 * GitHub. The planner then plans the label from the record and `now` (features/sla/plan.ts); the entry is
 * `timed`, so the drain does not read the threat from the platform for it either. Nothing due:
 * nothing queued, nothing written. A step GitHub refused for good (the issue locked, deleted) is
 * not queued again: its refusal is on the record and in `status`.
 */
export function sweepSla(ctx: SyncContext): number {
  if (!ctx.config.sla) return 0;
  const now = ctx.clock.now();
  let queued = 0;
  for (const [threatId, due] of ctx.index.slaDue) {
    if (due > now) continue;
    const record = ctx.state.threats.get(threatId);
    if (!record || record.refused || !breachDue(record, now)) continue;
    enqueue(ctx, threatId, { timed: true }, new Date(now).toISOString());
    queued += 1;
  }
  return queued;
}
