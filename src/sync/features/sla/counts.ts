import { DAY_MS } from "../../../shared/duration.js";
import type { ThreatRecords } from "../../records/threat-records.js";
import type { FeatureCounts } from "../types.js";

/**
 * What `status` and `/metrics` say of the SLA (contract, "Workflow": SLA): open issues past their
 * due date, and open issues due within 7 days (not yet past it).
 */
export type SlaCounts = {
  breached: number;
  dueWithin7Days: number;
};

const SOON_MS = 7 * DAY_MS;

/** `counts` with one open issue due at `due` (epoch ms) counted. */
function countDue(counts: SlaCounts, due: number, nowMs: number): void {
  if (due <= nowMs) counts.breached += 1;
  else if (due - nowMs <= SOON_MS) counts.dueWithin7Days += 1;
}

/** Counts from the due times (epoch ms) of the open issues with an SLA. */
export function slaCounts(dues: Iterable<number>, nowMs: number): SlaCounts {
  const counts: SlaCounts = { breached: 0, dueWithin7Days: 0 };
  for (const due of dues) countDue(counts, due, nowMs);
  return counts;
}

/**
 * The due times of the open issues with an SLA, from the stored records (`status`: no engine, no
 * index), read from the columns where the store packs the SLA (no record is built).
 */
export function openSlaDues(threats: ThreatRecords): number[] {
  const dues: number[] = [];
  threats.scanSla((_id, due, open) => {
    if (open) dues.push(due);
  });
  return dues;
}

/**
 * The counts of `status` (stored records, no index), counted as the scan goes: an array of
 * 100,000 due times and its iteration were ~7 MB of garbage at 100,000 threats with an SLA.
 */
export function storedSlaCounts(threats: ThreatRecords, nowMs: number): SlaCounts {
  const counts: SlaCounts = { breached: 0, dueWithin7Days: 0 };
  threats.scanSla((_id, due, open) => {
    if (open) countDue(counts, due, nowMs);
  });
  return counts;
}

export function formatSla(counts: FeatureCounts): string {
  const { breached = 0, dueWithin7Days = 0 } = counts;
  return `sla:        ${breached} open issues past their due date, ${dueWithin7Days} due within 7 days`;
}
