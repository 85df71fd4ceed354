import type { Config } from "../../config/index.js";
import type { GitHubConversation, GitHubGateway, GitHubWorkflow, IssueSnapshot } from "../../github/index.js";
import type { Logger } from "../../observability/index.js";
import type { PlatformClient, Threat } from "../../platform/index.js";
import type { Clock } from "../../shared/clock.js";
import type { EngineEvent, EngineObserver } from "../../shared/index.js";
import type { GroupRecord, Intent, ThreatRecord } from "../schema.js";
import type { ActionModule } from "../actions/types.js";
import type { SliceTagger } from "../records/slice-tags.js";
import type { CreateAttributes, Decider, FeatureAction } from "../plan/plan.js";
import type { FeatureShown, RenderedIssue, ThreatView } from "../render/index.js";
import type { ThreatIndex } from "../records/threat-index.js";
import type { EngineState, ThreatRecords } from "../records/threat-records.js";
import type { NewWork } from "../transitions/due-work.js";

/**
 * What a feature sees of the engine, built once per engine by the registry: the config, the two
 * sides, the stored records to read, and the few writes a feature makes (each goes through the
 * core's state updates, so that a commit holds exactly what changed).
 */
export interface FeatureContext {
  readonly config: Config;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly platform: PlatformClient;
  readonly github: GitHubGateway;
  /** Projects and people's comments; undefined where the engine runs without them (its own fakes). */
  readonly conversation: GitHubConversation | undefined;
  /** Sub-issues and milestones; undefined where the engine runs without them. */
  readonly workflow: GitHubWorkflow | undefined;
  /** The stored records, to read: a feature writes through the functions below only. */
  readonly state: Readonly<Pick<EngineState, "threats" | "assets" | "queue" | "groups" | "features">>;
  /** Threats by issue, and a feature's rare slices by threat (records/threat-index.ts). */
  readonly index: FeatureIndex;
  /** The repositories the config routes to, then those the stored issues are in (may repeat). */
  repositories(): string[];
  /** Replaces a threat's record with `change(record)`; nothing when the threat is not stored. */
  updateThreat(id: string, change: (record: ThreatRecord) => ThreatRecord): void;
  putGroup(key: string, group: GroupRecord): void;
  /** Sets the feature's own data beyond one record (`State.features[name]`). */
  setData(name: string, value: unknown): void;
  /** Queues work for a subject (a threat, or a group by its key), dated now. */
  enqueue(id: string, work: NewWork): void;
  /** Commits what changed now (a long backfill's progress). */
  persist(): Promise<void>;
  emit(event: EngineEvent): void;
  subscribe(observer: EngineObserver): () => void;
  /** True the first time a key is asked in this process (a warning said once), false after. */
  once(key: string): boolean;
}

/** What a feature reads of the engine's index: threats by issue, and its rare slices by threat. */
export type FeatureIndex = Pick<ThreatIndex, "byIssue" | "sliceBy">;

/** What a feature counts of its slices for `status` and `/metrics`, by name. */
export type FeatureCounts = Readonly<Record<string, number>>;

/** A list `status` shows beside the counts: under `key` in the JSON report, and as text lines (none: null). */
export interface FeatureListing {
  readonly key: string;
  readonly items: readonly object[];
  readonly text: string | null;
}

/** A feature's part of `status` and `/metrics`. */
export interface FeatureStatus {
  /** Its counts: under its name in the JSON report, and the gauges of `/metrics` that read them. */
  counts?(threats: ThreatRecords, nowMs: number): FeatureCounts;
  line?(counts: FeatureCounts): string;
  /** What it lists of the stored records (risk acceptances and their ends), before its counts' line. */
  listing?(threats: ThreatRecords): FeatureListing;
  /** Its summary of a slice as a digit, so that `status` counts slices by tag (`ThreatRecords.tallySlices`). */
  readonly tagger?: SliceTagger;
  /** Its `/metrics` gauges, each one of its counts: on `/metrics` whether it is configured or not (0 when off). */
  readonly gauges?: ReadonlyArray<{ readonly name: string; readonly help: string; readonly count: string }>;
}

/** When a feature's work waits on the clock; the core indexes due times so no cycle scans every record. */
export interface FeatureClock {
  /** The threats that may be due by `nowMs`, for a feature that keeps its own index. */
  waiting?(ctx: FeatureContext, nowMs: number): Iterable<string>;
  /** When the record is next due for this feature (epoch ms), or null: nothing waits on the clock. */
  nextDueAt(record: ThreatRecord, ctx: FeatureContext): number | null;
  scanDue?(threats: ThreatRecords, visit: (id: string, dueMs: number) => void): void;
  /** A lower bound of every stored due time: while it is in the future, the sweep reads nothing. */
  earliestDue?(threats: ThreatRecords): number;
  /** Its work is planned from the record alone: the drain does not read the threat for it. */
  readonly fromRecord: boolean;
  /** Whether a step due at `nowMs` is decided by the record alone (no read of the threat). */
  plannedFromRecord?(record: ThreatRecord, ctx: FeatureContext, nowMs: number): boolean;
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

/**
 * What a feature keeps in the threat's record as the core learns of the threat, its issue and its
 * status. A feature switched off is still asked for a record that holds its slice (a later
 * occurrence's marker outlives the setting), and never for one that does not.
 */
export interface FeatureRecordHooks {
  onThreatVersion?(
    ctx: FeatureContext,
    before: ThreatRecord | undefined,
    after: ThreatRecord,
    threat: Threat,
    severityRank: number | null,
  ): ThreatRecord;
  onIssueChange?(ctx: FeatureContext, threatId: string, issue: IssueSnapshot): void;
  /** What it keeps of an issue the connector made or took over (the SLA's start line, milestone). */
  onIssueFound?(record: ThreatRecord, issue: IssueSnapshot): ThreatRecord;
  /** The record as the threat's known status leaves it (an ended acceptance forgotten), or null. */
  onStatusSeen?(record: ThreatRecord, status: string, nowMs: number): ThreatRecord | null;
  /** The record once its step's keyed comment (a `comment` intent naming `step`) is on the issue. */
  stepCommented?(record: ThreatRecord, step: string): ThreatRecord;
  /**
   * What it keeps of the number a threat's issue marker carries (a later occurrence's issue is
   * marked with its number): which the record's issue is, and the record once an issue so marked
   * is taken over.
   */
  readonly marker?: {
    numberOf(record: ThreatRecord): number;
    adopted(record: ThreatRecord, number: number): ThreatRecord;
  };
}

/** What a feature adds to the core's plan of a threat or a group, and to the issue it renders. */
export interface FeaturePlanHooks {
  /** Its writes beside the core's, when the core leaves the issue's state alone; `view` null: from the record. */
  threat?(
    ctx: FeatureContext,
    threatId: string,
    record: ThreatRecord,
    view: ThreatView | null,
  ): FeatureAction[];
  /**
   * The writes it plans for a group's own issues, once the group's own plan is empty. Its actions
   * name the group's key as `threatId`, so their intents and settlements are the group's.
   */
  group?(ctx: FeatureContext, groupId: string, group: GroupRecord): FeatureAction[];
  /** Its clauses that decide before the core's; the first non-null answer, in registry order, is the plan. */
  decide?(config: Config, at: DecideAt): Decider | null;
  /** What a new issue is created with at its asking (the SLA's weekly milestone). */
  createWith?(ctx: FeatureContext, record: ThreatRecord): CreateAttributes;
  /** The issue as the record asks it shown (a later occurrence's own marker and first line), from the core's rendering. */
  render?(record: ThreatRecord, threatId: string, rendered: Rendering): Rendering;
  /** What it adds to the threat's issue and its templates (the SLA's due day), or null: nothing. */
  viewOf?(record: ThreatRecord, nowMs: number): FeatureShown | null;
}

/** A feature's kinds of write and how an interrupted one is resolved. */
export interface FeatureActions {
  /** Its modules by step (`FeatureAction.step`), carried out by the one runner. */
  readonly modules: Readonly<Record<string, ActionModule<FeatureAction, unknown>>>;
  /** What its modules use at send time (a client, a looked-up id), made once per process. */
  runtime?(ctx: FeatureContext): unknown;
  /** Whether its write landed, after a failure or a crash; false: the work stays queued. */
  recover?(ctx: FeatureContext, intent: Intent): Promise<boolean>;
  /** Whether an intent of a core kind is its write (a later occurrence's `create`): its `recover` resolves it. */
  claimsIntent?(intent: Intent): boolean;
}

/**
 * A feature the core loops over without naming it: at most eight hooks, each asked through the
 * registry, and a hook no configured feature has is never asked.
 */
export interface Feature {
  readonly name: string;
  /** The config section that switches it on: without it, the registry leaves the feature out. */
  readonly configKey: keyof Config;
  /** Whether it is on, where its section is nested (`github.project`): then `configKey` alone does not say. */
  configured?(config: Config): boolean;
  readonly record?: FeatureRecordHooks;
  readonly plan?: FeaturePlanHooks;
  /** Its time-driven work, when it has some: the queue wakes a threat when it is due (run/wake-due.ts). */
  readonly clock?: FeatureClock;
  readonly status?: FeatureStatus;
  readonly actions?: FeatureActions;
  /** Reads it makes once per cycle after intake and before the drain (one listing per repository, say). */
  beforeDrain?(ctx: FeatureContext): Promise<void>;
  check?(config: Config, deps: FeatureCheckDeps): Promise<FeatureCheckResult[]>;
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
