import type { LastCycle } from "../schema.js";
import { isMappingRepair, type EngineAction } from "../actions/index.js";
import { hasChanges, persist, type SyncContext } from "../context.js";
import { cycleSummary, type CycleCounts } from "../event-observers.js";
import { drainQueue, isStopped, type DrainOptions, type DrainResult } from "./drain.js";
import { printQueue } from "./dry-run.js";
import { keepValidators, readGitHub } from "../intake/github.js";
import { readAssets, readThreats, retryMalformed } from "../intake/platform.js";
import { queueSummary, type QueueSummary } from "../plan/queue-order.js";
import { recoverIntents } from "./recover.js";
import { enqueueAllGroups } from "../groups/plan-subject.js";
import { hasOldSingles } from "../groups/plan-old.js";
import { supersedeAndCommit, supersededGroups } from "../groups/supersede.js";
import { anyGroupStored } from "../records/group-members.js";
import { wakeDue } from "./wake-due.js";
import { beforeDrain } from "../features/registry.js";
import { putThreat, setMeta } from "../records/state-updates.js";
import { versionForgotten } from "../transitions/outcome.js";
import { rewindStream } from "../intake/stream-stops.js";
import { stoppedStreams, type StreamKind } from "../stopped-streams.js";

/** What `reconcile` may do (adopt issues, write links): each action kind's module says. */
export { isMappingRepair };

/**
 * One cycle (contract): resolve what an earlier run left unfinished; read both streams and GitHub's
 * changes; record the work due durably before any cursor is saved; carry it out in priority order.
 */

export interface CycleOptions {
  /** Stop starting new work at this epoch ms; the rest stays queued. */
  deadline?: number;
  /** Read and record only; the daemon drains between reads. */
  skipDrain?: boolean;
  signal?: AbortSignal;
  /** `reconcile`: read both sides from the beginning and carry out only mapping repairs. */
  reconcile?: boolean;
  /** Retry failed entries now rather than after their back-off (`sync`). */
  ignoreBackoff?: boolean;
  /** `reconcile --recreate`: threats whose issue a person deleted get a new one. */
  recreate?: boolean;
  /**
   * `run`: the daemon's most urgent work, run between two pages of a stream once the pages read are
   * recorded with their cursor; its commit takes them along, so a crash then loses nothing.
   */
  betweenPages?: () => Promise<void>;
  /**
   * `run`: a stream read that meets the platform's pause ends there, keeping the pages read; the
   * cycle goes on and `CycleReport.platformPause` says when the rest may be read.
   */
  endReadOnPause?: boolean;
}

export interface CycleReport {
  ok: boolean;
  error?: string | undefined;
  startedAt: string;
  finishedAt: string;
  drained: DrainResult;
  queue: QueueSummary;
  /** The cycle summary observer's tally; the same keys as `lastCycle.counts` (contract, `sync --json`). */
  counters: CycleCounts;
  dryRunActions?: number | undefined;
  /** Streams not read because the platform refused their saved cursor; `sync` exits 1 while one is listed. */
  streamsStopped?: Array<{ stream: StreamKind; at: string; detail: string }>;
  /** Epoch ms: a read ended at the platform's pause; the rest is due once it has passed. */
  platformPause?: number | undefined;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Forgets every stored version so the re-read plans each threat again; durable with the cursor's reset. */
function forgetVersions(ctx: SyncContext): void {
  for (const [id, record] of ctx.state.threats.entries()) {
    if (record.updatedAt !== "") putThreat(ctx, id, versionForgotten(record), record);
  }
}

/** Due work the threat walk lets pile up before it drains it, so a backfill holds bounded memory. */
export const INTERLEAVE_DUE = 1_000;

/** How long new due work waits for a long walk at most. */
export const INTERLEAVE_AGE_MS = 1_000;

/** Threats walked between two mid-walk reads of GitHub; in items, so a short walk reads GitHub once. */
export const INTERLEAVE_READ_ITEMS = 10_000;

function add(total: DrainResult, part: DrainResult): void {
  total.done += part.done;
  total.failed += part.failed;
  total.deferred += part.deferred;
}

/**
 * Between pages of the threat walk: once enough work is due, or it has waited long enough, or a
 * page brought none, the page's work is committed, GitHub's changes read and the queue drained.
 * Once a drain leaves work deferred (budget, deadline, stop), the walk reads on without draining.
 */
function interleavedDrain(
  ctx: SyncContext,
  drainOpts: DrainOptions,
  drained: DrainResult,
): (items: number) => Promise<void> {
  let deferred = false;
  // Entries left after the last drain (backing off) are not new work and start no drain.
  let left = Object.keys(ctx.state.queue).length;
  let lastPage = left;
  let dueSince: number | null = null;
  // The first drain reads GitHub, then once every INTERLEAVE_READ_ITEMS threats walked.
  let walked = Number.POSITIVE_INFINITY;
  return async (items) => {
    walked += items;
    if (deferred) return;
    const queued = Object.keys(ctx.state.queue).length;
    const now = ctx.clock.now();
    if (queued > left) dueSince ??= now;
    const full = queued >= (ctx.interleaveDue ?? INTERLEAVE_DUE);
    const waited = dueSince !== null && now - dueSince >= (ctx.interleaveAgeMs ?? INTERLEAVE_AGE_MS);
    // A page of items with no new work while some waits (a tail of echoes): the waiting work goes
    // out now. An empty page (the stream's end) leaves it to the cycle's drain, after GitHub's changes.
    const quiet = dueSince !== null && items > 0 && queued === lastPage;
    lastPage = queued;
    if (!full && !waited && !quiet) return;
    // A close made during a long walk is seen within a drain or two, and the drains' new issues are
    // read back as the walk goes. Threats only: a group follows once its members are filed.
    if (walked >= (ctx.interleaveReadItems ?? INTERLEAVE_READ_ITEMS)) {
      await readGitHub(ctx);
      walked = 0;
    }
    await persist(ctx);
    // Threats only: a group follows its members once the walk has filed them all.
    const part = await drainQueue(ctx, { ...drainOpts, only: "threat" });
    add(drained, part);
    if (part.deferred > 0) deferred = true;
    left = Object.keys(ctx.state.queue).length;
    lastPage = left;
    dueSince = null;
  };
}

/** Both hooks between pages, in order: the daemon's urgent work, then the walk's own drain. */
function both(
  first: (() => Promise<void>) | undefined,
  then: ((items: number) => Promise<void>) | undefined,
): ((items: number) => Promise<void>) | undefined {
  if (first === undefined) return then;
  return async (items) => {
    await first();
    await then?.(items);
  };
}

/**
 * The start of a cycle after `grouping` changed (contract, "Changing grouping"): the old groups are
 * superseded, and people's changes to old single-mode issues are read and their verdicts sent under
 * the old setting first. Nothing written in a dry run; without drain options only superseded.
 */
async function beginGroupingChange(ctx: SyncContext, drainOpts: DrainOptions | null): Promise<void> {
  await supersedeAndCommit(ctx);
  if (drainOpts === null || ctx.dryRun || !hasOldSingles(ctx)) return;
  await readGitHub(ctx);
  const personOnly = (action: EngineAction): boolean =>
    action.kind === "single_verdict" || action.kind === "single_person_done";
  await drainQueue(ctx, { ...drainOpts, only: "group", allow: personOnly });
}

/** The grouping setting of the config, as `groupingSeen` records it (`<by>/<mode>`; null: none). */
function groupingSetting(ctx: SyncContext): string | null {
  const grouping = ctx.config.grouping;
  return grouping === undefined ? null : `${grouping.by}/${grouping.mode ?? "parent"}`;
}

/**
 * The cycle's look at the stored groups, skipped while the config's grouping setting is the one
 * they were last seen under and none is superseded (state `groupingSeen`): an idle cycle reads no
 * group. Otherwise the change is begun and what was seen recorded.
 */
async function lookAtGroups(ctx: SyncContext, drainOpts: DrainOptions | null): Promise<void> {
  const setting = groupingSetting(ctx);
  const seen = ctx.state.groupingSeen;
  if (seen !== undefined && seen.setting === setting && !seen.superseded) return;
  if (anyGroupStored(ctx.state.groups)) await beginGroupingChange(ctx, drainOpts);
  const superseded = supersededGroups(ctx).length > 0;
  if (seen?.setting !== setting || seen.superseded !== superseded)
    setMeta(ctx, "groupingSeen", { setting, superseded });
}

export async function runCycle(ctx: SyncContext, opts: CycleOptions = {}): Promise<CycleReport> {
  const startedAtMs = ctx.clock.now();
  const startedAt = new Date(startedAtMs).toISOString();
  // What this cycle did is what its events say: its own summary observer, for this cycle only.
  const summary = cycleSummary();
  const unsubscribe = ctx.subscribe(summary.observe);
  try {
    ctx.emit({ type: "cycle_started", at: startedAtMs });
    const report = await cycleBody(ctx, opts, startedAt, summary.counts);
    const finishedAtMs = Date.parse(report.finishedAt);
    ctx.emit({
      type: "cycle_finished",
      ok: report.ok,
      at: finishedAtMs,
      durationMs: finishedAtMs - startedAtMs,
    });
    return report;
  } finally {
    unsubscribe();
  }
}

/** What a cycle's steps found, for its report: kept as they go, so a failure keeps what came before. */
interface CycleProgress {
  drained: DrainResult;
  error?: string | undefined;
  dryRunActions?: number | undefined;
  platformPause?: number | undefined;
}

/** The cycle the contract describes, as its steps (each below, in this order). */
async function cycleBody(
  ctx: SyncContext,
  opts: CycleOptions,
  startedAt: string,
  counts: () => CycleCounts,
): Promise<CycleReport> {
  const commitsBefore = ctx.commits;
  const progress: CycleProgress = { drained: { done: 0, failed: 0, deferred: 0 } };
  ctx.recreate = opts.recreate === true;
  try {
    await finishEarlierWork(ctx, opts);
    await readChanges(ctx, opts, progress);
    await recordDueWork(ctx);
    await carryOut(ctx, opts, progress);
  } catch (e) {
    progress.error = cycleFailed(ctx, e);
  }
  return finish(ctx, startedAt, counts, commitsBefore, progress);
}

/** The drain's options of this cycle: its deadline, its stop, and `sync`'s retry of backed-off entries. */
function drainOptionsOf(opts: CycleOptions): DrainOptions {
  return {
    ...(opts.deadline !== undefined ? { deadline: opts.deadline } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.ignoreBackoff ? { ignoreBackoff: true } : {}),
  };
}

/**
 * Step 1: what an earlier run left unfinished is resolved (its intents, by reading GitHub); what a
 * `reconcile`, a config change or a grouping change asks to be read or planned again is set up.
 */
async function finishEarlierWork(ctx: SyncContext, opts: CycleOptions): Promise<void> {
  if (!ctx.dryRun) await recoverIntents(ctx);
  if (opts.reconcile) {
    // Everything is read and planned again, also threats whose version the state already holds.
    rewindStream(ctx, "threats");
    setMeta(ctx, "githubSince", {});
    ctx.github.importEtags([]);
    forgetVersions(ctx);
  }
  if (ctx.state.renderKey !== ctx.renderer.key) {
    // What issues show depends on the config: after a change every threat is read again.
    if (ctx.state.renderKey !== undefined) {
      ctx.logger.info("the config changes what issues show; threats are read again from the start");
      rewindStream(ctx, "threats");
      forgetVersions(ctx);
    }
    setMeta(ctx, "renderKey", ctx.renderer.key);
    enqueueAllGroups(ctx);
  }
  // A changed `grouping`: what people did under the old setting is absorbed first.
  await lookAtGroups(ctx, opts.reconcile ? null : drainOptionsOf(opts));
  if (!ctx.groupsListed) {
    // Once per state every group with work left is queued; after that its members' changes
    // queue it, in the same commit as the change.
    if (ctx.state.groupsListed !== true) {
      enqueueAllGroups(ctx);
      setMeta(ctx, "groupsListed", true);
    }
    ctx.groupsListed = true;
  }
}

/**
 * Step 2: both streams to their end and GitHub's changes since the last cycle. Intake commits
 * each page's due work with its cursor; a long threat walk drains as it goes.
 */
async function readChanges(ctx: SyncContext, opts: CycleOptions, progress: CycleProgress): Promise<void> {
  const readOpts = { signal: opts.signal, endOnPause: opts.endReadOnPause === true };
  const assets = await readAssets(ctx, { ...readOpts, afterPage: opts.betweenPages });
  progress.platformPause = assets.pausedUntil;
  const interleave =
    ctx.dryRun || opts.skipDrain || opts.reconcile
      ? undefined
      : interleavedDrain(ctx, drainOptionsOf(opts), progress.drained);
  const afterPage = both(opts.betweenPages, interleave);
  // Threats are read after assets (a threat names its asset); not while the platform pauses.
  if (!opts.signal?.aborted && progress.platformPause === undefined) {
    progress.platformPause = (await readThreats(ctx, { ...readOpts, afterPage })).pausedUntil;
  }
  // Items that did not parse are read one by one: not while the platform pauses.
  if (progress.platformPause === undefined) await retryMalformed(ctx);
  await readGitHub(ctx);
  // What the features read once per cycle (people's comments, say), after both sides' changes.
  if (!opts.reconcile) await beforeDrain(ctx);
}

/** Step 3: the due work is committed with the cursors, watermarks and validators it covers. */
async function recordDueWork(ctx: SyncContext): Promise<void> {
  // The validators of the features' listings too, so that the next process asks with them.
  keepValidators(ctx);
  // Work the features' clocks made due, after people's changes (which may end what a clock waited for).
  wakeDue(ctx);
  await persist(ctx);
}

/** What `reconcile` carries out: mapping repairs, and with --recreate the issues people deleted. */
function reconcileFilter(
  ctx: SyncContext,
  opts: CycleOptions,
): ((action: EngineAction) => boolean) | undefined {
  if (!opts.reconcile) return undefined;
  if (!opts.recreate) return isMappingRepair;
  const recreating = (action: EngineAction): boolean =>
    action.kind === "create" && ctx.state.threats.get(action.threatId)?.deletedIssue !== undefined;
  return (action) => isMappingRepair(action) || recreating(action);
}

/**
 * Step 4: one drain for every subject, in priority order within the write budget: the threats'
 * work first, then their groups'. A dry run prints the plan instead.
 */
async function carryOut(ctx: SyncContext, opts: CycleOptions, progress: CycleProgress): Promise<void> {
  const allow = reconcileFilter(ctx, opts);
  if (ctx.dryRun) progress.dryRunActions = await printQueue(ctx, allow);
  else if (!opts.skipDrain) {
    add(progress.drained, await drainQueue(ctx, { ...drainOptionsOf(opts), ...(allow ? { allow } : {}) }));
  }
}

/** A cycle that failed is said once, its error kept for the report; a stop is the operator's, not a fault. */
function cycleFailed(ctx: SyncContext, e: unknown): string {
  const error = message(e);
  ctx.emit({ type: "cycle_failed", error: ctx.scrub(error.slice(0, 500)) });
  if (isStopped(e))
    ctx.logger.info({ err: error }, "cycle stopped; it resumes from the saved state next time");
  else ctx.logger.error({ err: error }, "cycle failed; it resumes from the saved cursors next time");
  return error;
}

/** Step 5: the cycle's summary recorded (unless idle) and its report. */
async function finish(
  ctx: SyncContext,
  startedAt: string,
  counts: () => CycleCounts,
  commitsBefore: number,
  progress: CycleProgress,
): Promise<CycleReport> {
  const { drained, dryRunActions, platformPause } = progress;
  let error = progress.error;
  const finishedAt = new Date(ctx.clock.now()).toISOString();
  const ok = error === undefined && drained.failed === 0;
  const last: LastCycle = { startedAt, finishedAt, ok, counts: counts() };
  if (error !== undefined) last.error = ctx.scrub(error.slice(0, 500));
  // An idle cycle (nothing changed, as good as the last) writes nothing at all.
  const idle = ctx.commits === commitsBefore && !hasChanges(ctx) && ok && ctx.state.lastCycle?.ok === true;
  if (!ctx.dryRun && !idle) {
    setMeta(ctx, "lastCycle", last);
    try {
      await persist(ctx);
    } catch (e) {
      error ??= message(e);
    }
  }
  const report: CycleReport = {
    ok: error === undefined && drained.failed === 0,
    startedAt,
    finishedAt,
    drained,
    queue: queueSummary(ctx.state),
    counters: counts(),
  };
  if (error !== undefined) report.error = error;
  if (dryRunActions !== undefined) report.dryRunActions = dryRunActions;
  if (platformPause !== undefined) report.platformPause = platformPause;
  const stopped = stoppedStreams(ctx.state.cursorRefused);
  if (stopped.length > 0) report.streamsStopped = stopped;
  return report;
}

export { drainQueue };
