import type { ThreatRecords } from "../../records/threat-records.js";
import { sliceOf, type FeatureCounts } from "../types.js";
import { decodeSlice, FEATURE } from "./slice.js";

/** `status`: the project items recorded (a record with a slice is kept whole: no packed row is read). */
export function projectCounts(threats: ThreatRecords): FeatureCounts {
  let items = 0;
  for (const [, record] of threats.uncommon()) {
    const slice = decodeSlice(sliceOf(record, FEATURE));
    if (slice && slice.i > 0) items += 1;
  }
  return { items };
}

export function projectLine(counts: FeatureCounts): string {
  return `project: ${counts["items"] ?? 0} items recorded`;
}
