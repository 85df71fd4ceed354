import type { Config } from "../../config/index.js";
import type { IssueSnapshot } from "../../github/index.js";
import type { Threat } from "../../platform/index.js";
import type { ThreatRecord } from "../../state/index.js";
import type { SyncContext } from "../context.js";
import type { ThreatRecords } from "../records/threat-records.js";

/** What a feature counts of its slices for `status` and `/metrics`, by name. */
export type FeatureCounts = Readonly<Record<string, number>>;

/**
 * A feature the core loops over without naming it (the registry holds the configured ones):
 * intake tells it of each threat version and each person's change to an issue, and each cycle asks
 * it which subjects its clock made due. Its slice of the record stays in the state's column table.
 */
export interface Feature {
  readonly name: string;
  /** The config section that switches it on: without it, the registry leaves the feature out. */
  readonly configKey: keyof Config;
  /** The record as a new version of its threat leaves it, with this feature's slice noted. */
  onThreatVersion(
    ctx: SyncContext,
    before: ThreatRecord | undefined,
    after: ThreatRecord,
    threat: Threat,
    severityRank: number | null,
  ): ThreatRecord;
  /** What it notes when a person's change to a mapped threat's issue is seen. */
  onIssueChange(ctx: SyncContext, threatId: string, issue: IssueSnapshot): void;
  /** Queues the threats whose time-driven work is due by now; answers how many it queued. */
  wakeDue(ctx: SyncContext): number;
  /** Its counts from the stored records (`status`, under the feature's name). */
  counts(threats: ThreatRecords, nowMs: number): FeatureCounts;
  /** The `status` line of those counts. */
  countsLine(counts: FeatureCounts): string;
}
