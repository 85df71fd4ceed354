import type { Config } from "../config/index.js";
import type { GitHubConversation, GitHubGateway, GitHubWorkflow, IssueSnapshot } from "../github/index.js";
import type { Logger } from "../observability/index.js";
import type { PlatformClient } from "../platform/index.js";
import type { Clock } from "../shared/clock.js";
import type { State } from "./schema.js";
import { engineState, type EngineState, type ThreatRecordsView } from "./records/threat-records.js";
import { policyFromConfig, type Policy } from "./plan/policy.js";
import { createRenderer, type Renderer } from "./render/renderer.js";
import { ThreatCache } from "./records/threat-cache.js";
import type { DryRunSink } from "./render/dry-run-record.js";
import { commitOf, emptyDirty, isClean, type DirtySet, type StateCommit } from "./records/state-changes.js";
import type { StateGuard } from "./records/state-guard.js";
import { eventBus, type EngineEvent, type EngineObserver } from "../shared/index.js";
import { auditObserver } from "./event-observers.js";
import { createStateContext } from "./records/state-updates.js";
import { ThreatIndex } from "./records/threat-index.js";
import { RelatedAssets } from "./related/index.js";

export type { CachedThreat } from "./records/threat-cache.js";
export type { DryRunSink } from "./render/dry-run-record.js";

interface SyncDeps {
  config: Config;
  platform: PlatformClient;
  github: GitHubGateway;
  /**
   * GitHub's sub-issues and milestones; absent where the engine runs without them (its own tests'
   * fakes), and then the workflow writes that need them are not planned.
   */
  workflow?: GitHubWorkflow;
  /** Projects and people's comments (github/conversation.ts); absent in the engine's own fakes. */
  conversation?: GitHubConversation;
  logger: Logger;
  clock: Clock;
  /**
   * Makes the changes durable (one database transaction); absent in dry-run. Called only when
   * something changed, with exactly what changed.
   */
  persist: ((commit: StateCommit) => Promise<void>) | null;
  dryRun?: DryRunSink;
  /** Deep-freezes the state's values and refuses in-place writes (tests; THREATBRIDGE_FREEZE_STATE=1). */
  freezeState?: boolean;
  /** Removes credentials from error texts before the state keeps them. */
  scrub?: (text: string) => string;
  /** Due work the threat walk lets pile up before it drains it (cycle.ts INTERLEAVE_DUE; tests). */
  interleaveDue?: number;
  /** How long new due work waits for the walk at most (cycle.ts INTERLEAVE_AGE_MS; tests). */
  interleaveAgeMs?: number;
  /** Threats walked between two mid-walk reads of GitHub (cycle.ts INTERLEAVE_READ_ITEMS; tests). */
  interleaveReadItems?: number;
  /** Observers of engine events beyond the audit log, for the whole run (tests); see also `subscribe`. */
  observers?: readonly EngineObserver[];
}

/** Everything one run of the engine shares; built once per process, reused by every cycle. */
export interface SyncContext extends SyncDeps {
  state: EngineState;
  /** The same records as `state.threats`, writable: only state-updates.ts writes through it. */
  threatRows: ThreatRecordsView;
  policy: Policy;
  renderer: Renderer;
  /** Threats read this run, by id, so that due work needs no second read. */
  cache: ThreatCache;
  /** Threats by asset and by issue, derived from the state on start and kept current. */
  index: ThreatIndex;
  /** What changed since the last commit (state-updates.ts marks it). */
  changes: DirtySet;
  stateGuard: StateGuard;
  scrub: (text: string) => string;
  /** When the state was last committed. */
  lastPersistAt: number;
  /** How many commits this process made (a cycle that made one is not idle: cycle.ts). */
  commits: number;
  /** How long the last state write took (a 100,000-threat state is tens of megabytes). */
  lastPersistMs: number;
  /** `reconcile --recreate`: threats whose issue a person deleted get a new one. */
  recreate?: boolean;
  /** Grouping's in-memory part (`GroupRuntime`), built on first use when grouping is on. */
  groupRuntime?: GroupRuntime;
  /**
   * Member threat id → its group's key (records/group-members.ts), built on first use from the
   * stored groups and kept current by the membership updates.
   */
  groupMembers?: Map<string, string>;
  /**
   * Member threat id → the superseded groups with an issue still to retire that list it, built on
   * first use (groups/plan-subject.ts `enqueueOwners`) and dropped when groups are superseded.
   */
  oldGroupMembers?: Map<string, string[]>;
  /** Every group was queued once in this process (run/cycle.ts: controller-runtime's initial list). */
  groupsListed?: boolean;
  /** What each plug-in feature made for its modules, by name, on first use (run/run-action.ts). */
  featureRuntimes?: Map<string, unknown>;
  /** The related assets of assets whose issues are written (config `render.related_assets`). */
  related?: RelatedAssets;
  /** When this process last said in the log that a stream is stopped (intake/stream-stops.ts). */
  streamStopsSaid?: Map<string, number>;
  /** Tells every observer what the engine did (shared/engine-events.ts): the audit log, the cycle summary, the rest. */
  emit: (event: EngineEvent) => void;
  /** Adds an observer of engine events (metrics, progress, demo); answers its unsubscribe. */
  subscribe: (observer: EngineObserver) => () => void;
}

export function createContext(deps: SyncDeps, loaded: State | EngineState): SyncContext {
  const held = createStateContext(engineState(loaded), {
    freeze: deps.freezeState === true,
    ...(deps.scrub ? { scrub: deps.scrub } : {}),
  });
  const state = held.state;
  // The one pass over every stored threat in a process: it also checks each record.
  const index = ThreatIndex.build(state.threats);
  // ETags survive restarts, so that the first read of people's changes after a start is a free 304.
  deps.github.importEtags(state.github.etags);
  const related = relatedAssetsOf(deps, () => ctx);
  const ctx: SyncContext = {
    ...deps,
    state,
    threatRows: held.threatRows,
    policy: policyFromConfig(deps.config),
    renderer: createRenderer(deps.config, deps.logger, related),
    cache: new ThreatCache(CACHE_MAX_BYTES, CACHE_MAX, deps.dryRun !== undefined),
    index,
    changes: held.changes,
    stateGuard: held.stateGuard,
    scrub: held.scrub,
    lastPersistAt: 0,
    commits: 0,
    lastPersistMs: 0,
    ...eventBus([auditObserver(deps.logger), ...(deps.observers ?? [])], (error, event) =>
      deps.logger.warn({ err: error, event: event.type }, "an observer of engine events failed"),
    ),
    ...(related ? { related } : {}),
  };
  if (related) ctx.subscribe((event) => event.type === "cycle_started" && related.newCycle());
  return ctx;
}

/** The related-assets store when `render.related_assets` lists any (its own module: src/sync/related). */
function relatedAssetsOf(deps: SyncDeps, ctx: () => SyncContext): RelatedAssets | undefined {
  const limit = deps.config.render?.related_assets ?? 0;
  if (limit <= 0) return undefined;
  return new RelatedAssets({
    platform: deps.platform,
    limit,
    fields: deps.config.fields.asset,
    assetVersion: (assetId) => {
      const asset = ctx().state.assets[assetId];
      return asset ? { version: asset.updatedAt, deleted: asset.deleted } : null;
    },
    emit: (event) => ctx().emit(event),
    warn: (fields, message) => ctx().logger.warn(fields, message),
  });
}

/**
 * Threats read this run are kept for the writer so that due work needs no second read, up to a
 * bound: a backfill queues far more than the write budget can do soon (500 issues an hour), and
 * the rest is read again (GET) when its turn comes. Bounded by bytes too: a
 * backlog of long descriptions must not grow the process by hundreds of megabytes.
 */
const CACHE_MAX = 5000;
const CACHE_MAX_BYTES = 32 * 1024 * 1024;

/**
 * Commits what changed since the last commit (one durable transaction): around every
 * non-idempotent write, and when a cycle's intake is done. Nothing changed: nothing is written.
 */
export async function persist(ctx: SyncContext): Promise<void> {
  if (isClean(ctx.changes)) return;
  const started = ctx.clock.now();
  const commit = commitOf(ctx.state, ctx.changes);
  // Cleared before the commit resolves: a change made while it is in flight belongs to the next.
  ctx.changes = emptyDirty();
  ctx.commits += 1;
  if (ctx.persist) await ctx.persist(commit);
  ctx.lastPersistAt = ctx.clock.now();
  ctx.lastPersistMs = ctx.lastPersistAt - started;
}

/** At least a second between checkpoints, and never more than ~5 % of the time spent writing. */
const CHECKPOINT_MS = 1000;
const CHECKPOINT_WRITE_SHARE = 20;

/**
 * Notes a change whose loss a crash cannot turn into a duplicate or a lost verdict (an idempotent
 * write, a queue entry done): it is committed within a second, with the next commit. A commit
 * costs the size of the change, so this only batches fsyncs.
 */
export async function checkpoint(ctx: SyncContext): Promise<void> {
  const interval = Math.max(CHECKPOINT_MS, CHECKPOINT_WRITE_SHARE * ctx.lastPersistMs);
  if (ctx.clock.now() - ctx.lastPersistAt >= interval) await persist(ctx);
}

/** Whether memory holds changes not yet committed. */
export function hasChanges(ctx: SyncContext): boolean {
  return !isClean(ctx.changes);
}

export function nowIso(ctx: SyncContext): string {
  return new Date(ctx.clock.now()).toISOString();
}

/**
 * What the grouping keeps in memory for one process (built on first use, never stored): which
 * group each member threat is in, the compiled title template, and what was already said once.
 */
export interface GroupRuntime {
  title: (scope: object) => string;
  /** Things logged once per process (a repository without sub-issues, a full parent). */
  said: Set<string>;
  /**
   * The group issues found on GitHub by their label, per repository listed in this process,
   * by group id (groups/adopt-existing.ts): those not adopted yet, for groups the state may
   * learn of later in the process.
   */
  found: Map<string, Map<string, IssueSnapshot>>;
  /** Repositories a stored parent marks as without sub-issues, read once (groups/plan-subject.ts). */
  noSubIssues?: Set<string>;
}
