import type { SliceTagger } from "../../records/slice-tags.js";
import type { ThreatRecords } from "../../records/threat-records.js";
import type { FeatureCounts } from "../types.js";
import { FEATURE, itemOf } from "./slice.js";

/** Tag of a slice that records an item (1), else 0 (removed by a person, or not one of ours). */
const ITEM = 1;

/** What `status` counts of a project slice, as a digit (src/sync/records/slice-tags.ts). */
export const projectTagger: SliceTagger = {
  id: "project/1",
  tag: (text) => ((itemOf(text) ?? 0) > 0 ? ITEM : 0),
};

/** `status`: the project items recorded, from the slices' tags. */
export function projectCounts(threats: ThreatRecords): FeatureCounts {
  return { items: threats.tallySlices(FEATURE, projectTagger)[ITEM] ?? 0 };
}

export function projectLine(counts: FeatureCounts): string {
  return `project: ${counts["items"] ?? 0} items recorded`;
}
