import type { Config } from "../../config/index.js";
import type { GitHubConversation, IssueSnapshot } from "../../github/index.js";
import type { PlatformClient, Threat } from "../../platform/index.js";
import type { GroupRecord, Intent, SliceTagger, ThreatRecord } from "../../state/index.js";
import type { ActionModule } from "../actions/types.js";
import type { CreateAttributes, Decider, FeatureAction } from "../plan/plan.js";
import type { RenderedIssue, ThreatView } from "../render/index.js";
import type { SyncContext } from "../context.js";
import type { ThreatRecords } from "../records/threat-records.js";

/** What a feature counts of its slices for `status` and `/metrics`, by name. */
export type FeatureCounts = Readonly<Record<string, number>>;

/** A feature's counts in `status`: under its name in the JSON report, and one line of text. */
export interface FeatureStatus {
  /** From the stored records (no engine, no index). */
  counts(threats: ThreatRecords, nowMs: number): FeatureCounts;
  line(counts: FeatureCounts): string;
}

/**
 * When a feature's work waits on the clock (a reconcile's `RequeueAfter`). Each cycle the core asks
 * which threats may be due (run/wake-due.ts): by default from the engine's index of due times, one
 * map per feature (records/threat-index.ts `dueTimes`), built from `nextDueAt` on the first sweep
 * and kept current by asking it of every changed record; never a scan of every record per cycle.
 */
export interface FeatureClock {
  /**
   * The threats that may be due by `nowMs`, for a feature that keeps its own index (never every
   * record). Without it, those of the engine's index of due times whose time has come.
   */
  waiting?(ctx: SyncContext, nowMs: number): Iterable<string>;
  /** When the record is next due for this feature (epoch ms), or null: nothing waits on the clock. */
  nextDueAt(record: ThreatRecord, ctx: SyncContext): number | null;
  /**
   * Every stored record's `nextDueAt` that is not null, read where the store packs it (its columns)
   * without building the records: a process's first sweep (a `sync` sweeps once, and builds no
   * index for it), then the index of due times' first build. Without it, that build asks
   * `nextDueAt` of every record once.
   */
  scanDue?(threats: ThreatRecords, visit: (id: string, dueMs: number) => void): void;
  /**
   * A time before which no stored record is due (a lower bound the store keeps, read without a
   * scan): while it is in the future the sweep reads nothing, builds no index, queues nothing.
   */
  earliestDue?(threats: ThreatRecords): number;
  /** Its work is planned from the record alone: the drain does not read the threat for it. */
  readonly fromRecord: boolean;
  /**
   * Whether a step of its own is due at `nowMs` that the record alone decides (no read of the
   * threat before it is planned, nor after: a risk acceptance's comment, warning and end), for a
   * threat queued without `timed` (a clock whose `fromRecord` is false).
   */
  plannedFromRecord?(record: ThreatRecord, ctx: SyncContext, nowMs: number): boolean;
}

/** A threat's issue as the core renders it, with its hash (what plan.ts `PlanInput.rendered` holds). */
export interface Rendering {
  readonly issue: RenderedIssue;
  readonly hash: string;
}

/** What a feature's decider is made with for one plan (features/types.ts `decide`). */
export interface DecideAt {
  threatId: string;
  /** The time the plan's time-driven steps are decided at (epoch ms). */
  nowMs: number;
  /** The core's rendering of the threat's issue before any feature's `render`; null when not read. */
  base: Rendering | null;
}

/**
 * A feature the core loops over without naming it (the registry holds the configured ones):
 * intake tells it of each threat version and each person's change to an issue, and each cycle asks
 * it which subjects its clock made due. Its slice of the record stays in the state's column table.
 */
export interface Feature {
  readonly name: string;
  /** The config section that switches it on: without it, the registry leaves the feature out. */
  readonly configKey: keyof Config;
  /** Whether it is on, where its section is nested (`github.project`): then `configKey` alone does not say. */
  configured?(config: Config): boolean;
  /** The record as a new version of its threat leaves it, with this feature's slice noted. */
  onThreatVersion?(
    ctx: SyncContext,
    before: ThreatRecord | undefined,
    after: ThreatRecord,
    threat: Threat,
    severityRank: number | null,
  ): ThreatRecord;
  /** What it notes when a person's change to a mapped threat's issue is seen. */
  onIssueChange?(ctx: SyncContext, threatId: string, issue: IssueSnapshot): void;
  /** Its time-driven work, when it has some: the queue wakes a threat when it is due (run/wake-due.ts). */
  readonly clock?: FeatureClock;
  /** What `status` shows of its slices, when it shows something. */
  readonly status?: FeatureStatus;
  /**
   * Its summary of a slice as a digit (src/state/slice-tags.ts): `status` counts its slices by
   * their tags, `ThreatRecords.tallySlices` with it.
   */
  readonly sliceTagger?: SliceTagger;
  /**
   * Its kinds of write, by step (`FeatureAction.step`): the one runner carries them out like the
   * core's (their priority, budget, intent, dry-run line and settlement are the module's).
   */
  readonly actions?: Readonly<Record<string, ActionModule<FeatureAction, unknown>>>;
  /**
   * The writes it plans for a threat, beside the core's: asked when the core's plan leaves the
   * issue's state alone (a close may make them moot; the next round asks again), from the record and
   * what the run has read: `view` is the threat as read, with every configured feature's additions
   * (`viewOf`: the SLA's due day), or null when the run has not read it (work planned from the
   * record alone). Nothing to do: an empty list (the plan has settled for this feature).
   */
  plan?(ctx: SyncContext, threatId: string, record: ThreatRecord, view: ThreatView | null): FeatureAction[];
  /**
   * The writes it plans for a group's own issues (grouping: parent mode's parents, single mode's
   * group issues), asked by the group's subject (groups/plan-subject.ts) once the group's own plan
   * is empty (its issues made and written), from the group's record. Its actions name the group's
   * key as `threatId` (the subject, records/subject.ts): their intents are the group's, and their
   * settlements change the group's record (`Settlement.group`, its slice by `withSlice`), never a
   * threat's. Nothing to do: an empty list (the plan has settled for this feature).
   */
  planGroup?(ctx: SyncContext, groupId: string, group: GroupRecord): FeatureAction[];
  /** Reads it makes once per cycle after intake and before the drain (one listing per repository, say). */
  beforeDrain?(ctx: SyncContext): Promise<void>;
  /**
   * Resolves an intent of its own (kind `feature`) whose write failed or that a crash left: answers
   * true when the write is found to have landed (and records what it means), false when it did not
   * (the threat's work stays queued and is planned again). Without it, a failed write is sent again.
   */
  recover?(ctx: SyncContext, intent: Intent): Promise<boolean>;
  /**
   * What `threatbridge check` says of it (each result one line; `warn` where it works with
   * something left out): a project's fields it cannot find, reads that carry no note, say.
   */
  check?(config: Config, deps: FeatureCheckDeps): Promise<FeatureCheckResult[]>;
  /**
   * The record as an issue the connector made or took over (by its link or marker) leaves it: what
   * the issue shows that the feature keeps (the SLA's hidden start line, its milestone).
   */
  onIssueFound?(record: ThreatRecord, issue: IssueSnapshot): ThreatRecord;
  /** What it adds to the threat's view for the issue and its templates (the SLA's due day). */
  viewOf?(record: ThreatRecord, nowMs: number): Partial<ThreatView>;
  /** What a new issue is created with at its asking (the SLA's weekly milestone). */
  createWith?(ctx: SyncContext, record: ThreatRecord): CreateAttributes;
  /** What its action modules use at send time (a client, a looked-up id), made once per process. */
  runtime?(ctx: SyncContext): unknown;
  /**
   * Its clauses that decide first (plan.ts `Decider`): asked on a person's change before the core's
   * verdict, and on an existing issue before the core's issue steps; the first answer that is not
   * null, in the registry's order, is the plan. Made for one plan from the config, the time and the
   * core's rendering; pure from then on. Null: nothing to decide for this plan.
   */
  decide?(config: Config, at: DecideAt): Decider | null;
  /**
   * The record as the threat's status, seen now (read, or held by the state), leaves it, or null
   * when unchanged: a risk acceptance the platform or a person ended is forgotten. Asked before the
   * plan, on each plan of a mapped threat whose status is known.
   */
  onStatusSeen?(record: ThreatRecord, status: string, nowMs: number): ThreatRecord | null;
  /** The issue as the record asks it shown (a later occurrence's own marker and first line), from the core's rendering. */
  render?(record: ThreatRecord, threatId: string, rendered: Rendering): Rendering;
  /**
   * An intent of a core kind that is its write (a `create` of a later occurrence, written in the
   * shape earlier versions journaled): then its `recover` resolves it, as it does its `feature` ones.
   */
  claimsIntent?(intent: Intent): boolean;
  /**
   * A keyed comment that is its step (an intent of kind `comment` naming `step`) is on the issue:
   * the record once that step is done. The core posts or finds the comment (run/recover.ts).
   */
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
  /** What to do next; set on every failure. */
  hint?: string;
}

/** What holds features' slices: a threat's record, or a group's (`GroupRecord.slices`). */
export interface Sliced {
  slices?: Record<string, string> | undefined;
}

/** A feature's slice of a record (a threat's or a group's): the string it stored there, or undefined. */
export function sliceOf(record: Sliced | undefined, feature: string): string | undefined {
  return record?.slices?.[feature];
}

/** The record with the feature's slice set (undefined removes it; no slice left removes `slices`). */
export function withSlice<R extends Sliced>(record: R, feature: string, value: string | undefined): R {
  const { [feature]: _old, ...others } = record.slices ?? {};
  const slices = value === undefined ? others : { ...others, [feature]: value };
  const { slices: _all, ...rest } = record;
  return (Object.keys(slices).length === 0 ? rest : { ...rest, slices }) as R;
}
