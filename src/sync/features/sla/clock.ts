import type { ThreatRecord } from "../../schema.js";
import type { ThreatRecords } from "../../records/threat-records.js";
import type { FeatureClock } from "../types.js";
import { dueMs } from "./transitions.js";
import { SLA, SLA_TIME, slaOf } from "./slice.js";

/** The SLA's time-driven work: open issues past due without the label, from stored columns, never a scan. */
export const slaClock: FeatureClock = {
  nextDueAt: (record: ThreatRecord) => {
    const sla = slaOf(record);
    const issue = record.issue;
    if (!sla || issue?.state !== "open" || record.gone || sla.breach) return null;
    return dueMs(sla);
  },
  // The same as `nextDueAt` of each record, from the slices' due times in SQL (no record built).
  scanDue: (threats: ThreatRecords, visit: (id: string, dueMs: number) => void) =>
    threats.scanTimes(SLA, SLA_TIME, (id, due, open, breach) => {
      if (open && !breach) visit(id, due);
    }),
  // One SQL aggregate of the slices' due times: an idle cycle's sweep reads no row.
  earliestDue: (threats: ThreatRecords) => threats.earliestTime(SLA, SLA_TIME),
  fromRecord: true,
};
