import type { ThreatRecord } from "../../../state/index.js";
import type { ThreatRecords } from "../../records/threat-records.js";
import type { FeatureClock } from "../types.js";
import { dueMs } from "./transitions.js";

/** The SLA's time-driven work: open issues past due without the label, from stored columns, never a scan. */
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
