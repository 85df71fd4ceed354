import type { ThreatRecords } from "../../records/threat-records.js";
import type { FeatureCounts } from "../types.js";
import { FEATURE, itemOf } from "./slice.js";

/** `status`: the project items recorded, read from the slices' column (no record is built). */
export function projectCounts(threats: ThreatRecords): FeatureCounts {
  let items = 0;
  threats.scanSlices(FEATURE, (_id, text) => {
    if ((itemOf(text) ?? 0) > 0) items += 1;
  });
  return { items };
}

export function projectLine(counts: FeatureCounts): string {
  return `project: ${counts["items"] ?? 0} items recorded`;
}
