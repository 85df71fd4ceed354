import type { ThreatRecord } from "../../../state/index.js";
import type { ThreatRecords } from "../../records/threat-records.js";
import type { FeatureClock } from "../types.js";
import { dueMs } from "./transitions.js";

/**
 * The SLA's time-driven work (contract, "Workflow": SLA): an open issue past its due date whose
 * breach label is not added yet. A process's first sweep reads the stored SLA columns (`scanDue`);
 * later ones read the engine's index of due times (records/threat-index.ts `dueTimes`, built from
 * those columns and kept current from `nextDueAt`), never a scan of every record; the planner then plans the label
 * from the record and `now` (plan.ts), with no read of the threat from the platform either.
 */
export const slaClock: FeatureClock = {
  nextDueAt: (record: ThreatRecord) => {
    const { sla, issue } = record;
    if (!sla || issue?.state !== "open" || record.gone || sla.breach) return null;
    return dueMs(sla);
  },
  // The same as `nextDueAt` of each record, from the columns the store packs the SLA in.
  scanDue: (threats: ThreatRecords, visit: (id: string, dueMs: number) => void) =>
    threats.scanSla((id, due, open, breach) => {
      if (open && !breach) visit(id, due);
    }),
  // What the store keeps of the columns' due times: an idle cycle's sweep reads no row.
  earliestDue: (threats: ThreatRecords) => threats.earliestSlaDue(),
  fromRecord: true,
};
