import type { Config } from "../../config/index.js";
import type { GitHubConversation, IssueSnapshot } from "../../github/index.js";
import type { PlatformClient, Threat } from "../../platform/index.js";
import type { GroupRecord, Intent, ThreatRecord } from "../../state/index.js";
import type { ActionModule } from "../actions/types.js";
import type { SliceTagger } from "../records/slice-tags.js";
import type { CreateAttributes, Decider, FeatureAction } from "../plan/plan.js";
import type { FeatureShown, RenderedIssue, ThreatView } from "../render/index.js";
import type { SyncContext } from "../context.js";
import type { ThreatRecords } from "../records/threat-records.js";

/** What a feature counts of its slices for `status` and `/metrics`, by name. */
export type FeatureCounts = Readonly<Record<string, number>>;

/** A feature's counts in `status`: under its name in the JSON report, and one line of text. */
export interface FeatureStatus {
  counts(threats: ThreatRecords, nowMs: number): FeatureCounts;
  line(counts: FeatureCounts): string;
}

/** When a feature's work waits on the clock; the core indexes due times so no cycle scans every record. */
export interface FeatureClock {
  /** The threats that may be due by `nowMs`, for a feature that keeps its own index. */
  waiting?(ctx: SyncContext, nowMs: number): Iterable<string>;
  /** When the record is next due for this feature (epoch ms), or null: nothing waits on the clock. */
  nextDueAt(record: ThreatRecord, ctx: SyncContext): number | null;
  scanDue?(threats: ThreatRecords, visit: (id: string, dueMs: number) => void): void;
  /** A lower bound of every stored due time: while it is in the future, the sweep reads nothing. */
  earliestDue?(threats: ThreatRecords): number;
  /** Its work is planned from the record alone: the drain does not read the threat for it. */
  readonly fromRecord: boolean;
  /** Whether a step due at `nowMs` is decided by the record alone (no read of the threat). */
  plannedFromRecord?(record: ThreatRecord, ctx: SyncContext, nowMs: number): boolean;
}

/** A threat's issue as the core renders it, with its hash (what plan.ts `PlanInput.rendered` holds). */
export interface Rendering {
  readonly issue: RenderedIssue;
  readonly hash: string;
}

export interface DecideAt {
  threatId: string;
  nowMs: number;
  /** The core's rendering of the threat's issue before any feature's `render`; null when not read. */
  base: Rendering | null;
}

/** A feature the core loops over without naming it; a hook no configured feature has is never asked. */
export interface Feature {
  readonly name: string;
  /** The config section that switches it on: without it, the registry leaves the feature out. */
  readonly configKey: keyof Config;
  /** Whether it is on, where its section is nested (`github.project`): then `configKey` alone does not say. */
  configured?(config: Config): boolean;
  onThreatVersion?(
    ctx: SyncContext,
    before: ThreatRecord | undefined,
    after: ThreatRecord,
    threat: Threat,
    severityRank: number | null,
  ): ThreatRecord;
  onIssueChange?(ctx: SyncContext, threatId: string, issue: IssueSnapshot): void;
  /** Its time-driven work, when it has some: the queue wakes a threat when it is due (run/wake-due.ts). */
  readonly clock?: FeatureClock;
  readonly status?: FeatureStatus;
  /** Its summary of a slice as a digit, so that `status` counts slices by tag (`ThreatRecords.tallySlices`). */
  readonly sliceTagger?: SliceTagger;
  /** Its kinds of write, by step (`FeatureAction.step`), carried out by the one runner. */
  readonly actions?: Readonly<Record<string, ActionModule<FeatureAction, unknown>>>;
  /** Its writes beside the core's, when the core leaves the issue's state alone; `view` null: from the record. */
  plan?(ctx: SyncContext, threatId: string, record: ThreatRecord, view: ThreatView | null): FeatureAction[];
  /**
   * The writes it plans for a group's own issues, once the group's own plan is empty. Its actions
   * name the group's key as `threatId`, so their intents and settlements are the group's.
   */
  planGroup?(ctx: SyncContext, groupId: string, group: GroupRecord): FeatureAction[];
  /** Reads it makes once per cycle after intake and before the drain (one listing per repository, say). */
  beforeDrain?(ctx: SyncContext): Promise<void>;
  /** Whether its write landed, after a failure or a crash; false: the work stays queued. */
  recover?(ctx: SyncContext, intent: Intent): Promise<boolean>;
  check?(config: Config, deps: FeatureCheckDeps): Promise<FeatureCheckResult[]>;
  /** What it keeps of an issue the connector made or took over (the SLA's start line, milestone). */
  onIssueFound?(record: ThreatRecord, issue: IssueSnapshot): ThreatRecord;
  /** What it adds to the threat's issue and its templates (the SLA's due day), or null: nothing. */
  viewOf?(record: ThreatRecord, nowMs: number): FeatureShown | null;
  /** What a new issue is created with at its asking (the SLA's weekly milestone). */
  createWith?(ctx: SyncContext, record: ThreatRecord): CreateAttributes;
  /** What its action modules use at send time (a client, a looked-up id), made once per process. */
  runtime?(ctx: SyncContext): unknown;
  /** Its clauses that decide before the core's; the first non-null answer, in registry order, is the plan. */
  decide?(config: Config, at: DecideAt): Decider | null;
  /** The record as the threat's known status leaves it (an ended acceptance forgotten), or null. */
  onStatusSeen?(record: ThreatRecord, status: string, nowMs: number): ThreatRecord | null;
  /** The issue as the record asks it shown (a later occurrence's own marker and first line), from the core's rendering. */
  render?(record: ThreatRecord, threatId: string, rendered: Rendering): Rendering;
  /** Whether an intent of a core kind is its write (a later occurrence's `create`): its `recover` resolves it. */
  claimsIntent?(intent: Intent): boolean;
  /**
   * What it keeps of the number a threat's issue marker carries (a later occurrence's issue is
   * marked `occurrence=<n>`): which the record's issue is, and the record once an issue so marked
   * is taken over. Asked whether configured or not: a marker outlives a setting.
   */
  readonly marker?: {
    numberOf(record: ThreatRecord): number;
    adopted(record: ThreatRecord, number: number): ThreatRecord;
  };
  /** The record once its step's keyed comment (a `comment` intent naming `step`) is on the issue. */
  stepCommented?(record: ThreatRecord, step: string): ThreatRecord;
}

/** What a feature's check may read (cli/check/checks.ts gives it; it never writes). */
export interface FeatureCheckDeps {
  platform: Pick<PlatformClient, "streamThreats">;
  conversation?: GitHubConversation;
}

/** One line of `check` (cli/check/checks.ts `CheckResult`, repeated here so features need not import the CLI). */
export interface FeatureCheckResult {
  check: string;
  status: "pass" | "fail" | "skip" | "warn";
  detail: string;
  hint?: string;
}

/** What holds features' slices: a threat's record, or a group's (`GroupRecord.slices`). */
export interface Sliced {
  slices?: Record<string, string> | undefined;
}

/** A feature's slice of a record (a threat's or a group's): the string it stored there, or undefined. */
export function sliceOf(record: Sliced | undefined | null, feature: string): string | undefined {
  return record?.slices?.[feature];
}

/** The record with the feature's slice set (undefined removes it; no slice left removes `slices`). */
export function withSlice<R extends Sliced>(record: R, feature: string, value: string | undefined): R {
  const { [feature]: _old, ...others } = record.slices ?? {};
  const slices = value === undefined ? others : { ...others, [feature]: value };
  const { slices: _all, ...rest } = record;
  return (Object.keys(slices).length === 0 ? rest : { ...rest, slices }) as R;
}

/**
 * A feature's slice kept as JSON: its value when the text parses and `accept` takes it (a plain
 * check, or the feature's schema), else undefined (a slice that does not parse counts as none).
 */
export function jsonSliceOf<T>(
  record: Sliced | undefined | null,
  feature: string,
  accept: (value: unknown) => T | undefined,
): T | undefined {
  const text = sliceOf(record, feature);
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return accept(value);
}

/** The record with the feature's slice set to `value` as JSON (undefined removes it). */
export function withJsonSlice<R extends Sliced>(record: R, feature: string, value: object | undefined): R {
  return withSlice(record, feature, value === undefined ? undefined : JSON.stringify(value));
}
