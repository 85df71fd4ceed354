import type { ThreatRecord } from "../../../state/index.js";
import type { SyncContext } from "../../context.js";
import type { FeatureClock } from "../types.js";
import { dueMs } from "./transitions.js";

/**
 * The SLA's time-driven work (contract, "Workflow": SLA): an open issue past its due date whose
 * breach label is not added yet. The threats waiting are read from the engine's index of due times
 * (records/threat-index.ts), never from a scan of every record; the planner then plans the label
 * from the record and `now` (plan.ts), with no read of the threat from the platform either.
 */
export const slaClock: FeatureClock = {
  waiting: (ctx: SyncContext, nowMs: number) => dueBy(ctx.index.slaDue, nowMs),
  nextDueAt: (record: ThreatRecord) => {
    const { sla, issue } = record;
    if (!sla || issue?.state !== "open" || record.gone || sla.breach) return null;
    return dueMs(sla);
  },
  fromRecord: true,
};

function* dueBy(dues: ReadonlyMap<string, number>, nowMs: number): Iterable<string> {
  for (const [threatId, due] of dues) if (due <= nowMs) yield threatId;
}
