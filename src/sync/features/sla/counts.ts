import { DAY_MS } from "../../../shared/duration.js";
import type { ThreatRecords } from "../../records/threat-records.js";
import type { FeatureCounts } from "../types.js";
import { SLA, SLA_TIME } from "./slice.js";

/** What `status` and `/metrics` say of the SLA: open issues past due, and due within 7 days. */
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

/** The due times of the open issues with an SLA, read from the slices' due times (no record built). */
export function openSlaDues(threats: ThreatRecords): number[] {
  const dues: number[] = [];
  threats.scanTimes(SLA, SLA_TIME, (_id, due, open) => {
    if (open) dues.push(due);
  });
  return dues;
}

/** The counts of `status`, as counts of the open issues' due times up to now and up to 7 days on. */
export function storedSlaCounts(threats: ThreatRecords, nowMs: number): SlaCounts {
  const [breached = 0, within = 0] = threats.countTimes(SLA, SLA_TIME, [nowMs, nowMs + SOON_MS]);
  return { breached, dueWithin7Days: within - breached };
}

export function formatSla(counts: FeatureCounts): string {
  const { breached = 0, dueWithin7Days = 0 } = counts;
  return `sla:        ${breached} open issues past their due date, ${dueWithin7Days} due within 7 days`;
}
