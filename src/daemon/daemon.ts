import {
  drainProgress,
  drainSeconds,
  drainView,
  type Logger,
  type RateLimitSeen,
} from "../observability/index.js";
import { realSleep, systemClock, type Clock, type Sleep } from "../shared/clock.js";
import {
  absorbIssueNow,
  drainQueue,
  isWrite,
  persist,
  QueueClass,
  runCycle,
  stoppedStreams,
  type CycleOptions,
  type CycleReport,
  type DrainOptions,
  type DrainResult,
  type EngineEvent,
  type StreamKind,
  type SyncContext,
  writeSide,
} from "../sync/index.js";
import { nextWorkAt } from "./next-work.js";
import { createPollPace, type PollStats } from "./poll-pace.js";
import type { ScheduleHandle, Scheduler } from "./scheduler.js";

/**
 * The `run` loop (contract): a cycle at start, then one per `schedule`, never two at once, draining
 * the queue between reads. One loop does it all: a tick only raises a flag, and nothing a cycle
 * throws stops the loop.
 *
 * A person's verdict is the first write (contract, "Priorities"): the urgent step (the issues
 * webhooks named, and the verdicts due) runs before each cycle and between two pages of a read.
 * The loop never waits on the platform's pause: it reads on once the pause has passed.
 */

/** The longest Retry-After `run`'s platform client waits in place; a longer one ends the request. */
export const RUN_RETRY_AFTER_WAIT_MS = 5_000;

export interface DaemonEngine {
  runCycle(ctx: SyncContext, opts: CycleOptions): Promise<CycleReport>;
  drainQueue(ctx: SyncContext, opts: DrainOptions): Promise<DrainResult>;
  absorbIssueNow(ctx: SyncContext, repo: string, number: number): Promise<boolean>;
}

export interface DaemonOptions {
  ctx: SyncContext;
  scheduler: Scheduler;
  logger: Logger;
  clock?: Clock;
  sleep?: Sleep;
  engine?: Partial<DaemonEngine>;
  /** Longest stretch of draining before the loop looks at ticks and stop requests again (default 10 s). */
  drainSliceMs?: number;
  /** Longest idle wait before the loop looks at the queue again (default 60 s). */
  maxIdleMs?: number;
  /** Wait after a drain that threw (default 5 s), so that a broken disk does not spin the loop. */
  errorPauseMs?: number;
  /** GitHub's rate limit as its last answer showed it: the progress log's ETA counts it. */
  rateLimit?: () => RateLimitSeen | null;
}

export type DaemonPhase = "starting" | "running" | "stopping" | "stopped";

export interface DaemonStatus {
  phase: DaemonPhase;
  cycles: { ok: number; failed: number };
  cycleRunning: boolean;
  lastCycle: { ok: boolean; finishedAt: number; durationMs: number; error?: string } | null;
  /** Epoch ms when the last successful cycle finished. */
  lastOkAt: number | null;
  /** The schedule's period, for readiness. */
  periodMs: number;
  /** The pace the polls actually kept, and the ticks that started none (/metrics). */
  poll: PollStats;
  /** Streams stopped because the platform refused their saved cursor (read from the state). */
  streamsStopped: Array<{ stream: StreamKind; at: string; detail: string }>;
}

export interface Daemon {
  /** Runs until `stop()`; resolves once the work in flight is finished and the state is saved. */
  run(): Promise<void>;
  /** Stop starting new work (SIGTERM/SIGINT). Idempotent. */
  stop(): void;
  /** A webhook said an issue changed: read and drained soon; returns at once; named twice, read once. */
  issueChanged(repo: string, number: number): void;
  status(): DaemonStatus;
}

/** Issues named by webhooks that wait for the loop at most (a burst beyond it is left to the poll). */
const MAX_NAMED = 1000;

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function createDaemon(opts: DaemonOptions): Daemon {
  const { ctx, logger } = opts;
  const clock = opts.clock ?? systemClock;
  const sleep = opts.sleep ?? realSleep;
  const engine: DaemonEngine = {
    runCycle: opts.engine?.runCycle ?? runCycle,
    drainQueue: opts.engine?.drainQueue ?? drainQueue,
    absorbIssueNow: opts.engine?.absorbIssueNow ?? absorbIssueNow,
  };
  const sliceMs = opts.drainSliceMs ?? 10_000;
  // One info line a minute while a backlog drains, so a long drain is not silent.
  const b = ctx.config.github.write_budget;
  const progress = drainProgress({
    logger,
    now: () => clock.now(),
    budget: { perMinute: b.per_minute, perHour: b.per_hour, minIntervalMs: b.min_interval_ms },
    eta: (writes) =>
      drainSeconds(
        writes,
        drainView(ctx.github.budget.snapshot(), opts.rateLimit?.() ?? null),
        ctx.clock.now(),
      ),
  });
  /** Writes done to each side while running, as the engine's events tell (the progress log's counts). */
  const written = { github: 0, platform: 0 };
  const countWrites = (event: EngineEvent): void => {
    if (isWrite(event)) written[writeSide(event)] += 1;
  };
  const maxIdleMs = opts.maxIdleMs ?? 60_000;
  const errorPauseMs = opts.errorPauseMs ?? 5_000;
  const status: Omit<DaemonStatus, "poll"> = {
    phase: "starting",
    cycles: { ok: 0, failed: 0 },
    cycleRunning: false,
    lastCycle: null,
    lastOkAt: null,
    periodMs: 0,
    streamsStopped: [],
  };
  // The platform client's Retry-After gate (restored from the state at start) holds polls back too.
  const pace = createPollPace({ notBefore: () => ctx.platform.stats().notBefore, logger });
  let cycleDue = true;
  /** When the rest of a read the platform's pause cut short is due (a poll of its own, not a tick's). */
  let resumeAt: number | null = null;
  let stopping = false;
  /** Aborted by `stop()`: ends the urgent step's drain between two entries. */
  const stopped = new AbortController();
  let handle: ScheduleHandle | null = null;
  /** Interrupts whatever the loop is waiting on: a drain (between entries) or an idle wait. */
  let interrupt: AbortController | null = null;
  /** Ends a cycle's reads between pages on a stop (a tick never interrupts a cycle). */
  let cycleStop: AbortController | null = null;
  /** Issues webhooks named, not read yet, by `owner/name#N` (bounded: the poll reads the rest). */
  const named = new Map<string, { repo: string; number: number }>();
  /** Whether the overflow of `named` was logged since the loop last emptied it (one line a burst). */
  let overflowLogged = false;

  function poke(): void {
    interrupt?.abort(new Error("interrupted"));
  }

  async function cycle(): Promise<void> {
    cycleDue = false;
    status.cycleRunning = true;
    const started = clock.now();
    pace.started(started);
    let ok = false;
    let error: string | undefined;
    // A failure the cycle reports was logged by the cycle itself; logged again it reads as two.
    let logged = false;
    try {
      cycleStop = new AbortController();
      const signal = cycleStop.signal;
      const report = await engine.runCycle(ctx, {
        skipDrain: true,
        signal,
        endReadOnPause: true,
        // Between pages only when a webhook named an issue: an ordinary page costs nothing more.
        betweenPages: () => (named.size > 0 ? urgent(signal, "threat") : Promise.resolve()),
      });
      resumeAt = report.platformPause ?? null;
      ok = report.ok;
      error = report.error;
      logged = report.error !== undefined;
      if (ok) {
        logger.info(
          { duration_ms: clock.now() - started, queued: report.queue.total, counts: report.counters },
          "cycle done; draining the queue until the next one",
        );
      }
    } catch (e) {
      error = message(e);
    } finally {
      cycleStop = null;
    }
    const finishedAt = clock.now();
    status.cycleRunning = false;
    status.lastCycle = {
      ok,
      finishedAt,
      durationMs: finishedAt - started,
      ...(error !== undefined ? { error } : {}),
    };
    if (ok) {
      status.cycles.ok += 1;
      status.lastOkAt = finishedAt;
    } else {
      status.cycles.failed += 1;
      if (!logged)
        logger.error({ err: error ?? "some work failed" }, "cycle failed; the next tick tries again");
    }
  }

  /** One slice of draining; answers how long to wait before the next one (0 = go on at once). */
  async function drain(): Promise<number> {
    const now = clock.now();
    // A tick time already past (a late timer) bounds nothing: the tick itself interrupts the drain.
    const tickAt = handle?.nextRunAt() ?? null;
    const nextTick = tickAt !== null && tickAt > now ? tickAt : Number.POSITIVE_INFINITY;
    const control = new AbortController();
    interrupt = control;
    try {
      const result = await engine.drainQueue(ctx, {
        deadline: Math.min(now + sliceMs, nextTick),
        signal: control.signal,
        // A webhook's issue (or a tick, or a stop) need not wait for the next write's budget slot.
        waitForSlot: sleep,
        // Nor does GitHub's work wait for the platform's pause: what needs the platform goes after it.
        deferPlatformPause: true,
      });
      progress(written, Object.keys(ctx.state.queue).length);
      if (result.done + result.failed > 0) return 0;
      return Math.min(maxIdleMs, Math.max(0, nextWorkAt(ctx, clock.now()) - clock.now()));
    } catch (e) {
      logger.error({ err: e }, "draining the queue failed; it goes on shortly");
      return errorPauseMs;
    } finally {
      interrupt = null;
    }
  }

  async function idle(ms: number): Promise<void> {
    const control = new AbortController();
    interrupt = control;
    try {
      await sleep(ms, control.signal);
    } catch {
      // Interrupted by a tick or a stop: the loop looks again.
    } finally {
      interrupt = null;
    }
  }

  /** The urgent step: the issues webhooks named are read, then the people's verdicts due are sent. */
  async function urgent(signal: AbortSignal, only?: "threat"): Promise<void> {
    if (named.size > 0) await absorbNamed();
    if (stopping) return;
    try {
      await engine.drainQueue(ctx, {
        upTo: QueueClass.verdict,
        deferPlatformPause: true,
        signal,
        ...(only ? { only } : {}),
      });
    } catch (e) {
      // The full drain after the cycle tries again.
      logger.error({ err: e }, "sending people's verdicts failed; the drain goes on shortly");
    }
  }

  /** Reads each issue webhooks named since the last look, one at a time, as the loop's own work. */
  async function absorbNamed(): Promise<void> {
    const issues = [...named.values()];
    named.clear();
    overflowLogged = false;
    for (const { repo, number } of issues) {
      if (stopping) return;
      try {
        await engine.absorbIssueNow(ctx, repo, number);
      } catch (e) {
        // The next cycle's poll reads the issue anyway: a failed read only loses the head start.
        logger.warn({ issue: `${repo}#${number}`, err: e }, "reading an issue a webhook named failed");
      }
    }
  }

  async function loop(): Promise<void> {
    while (!stopping) {
      // The rest of a read the platform's pause cut short: due once the pause has passed.
      if (resumeAt !== null && clock.now() >= resumeAt) {
        resumeAt = null;
        cycleDue = true;
      }
      // People's verdicts go before the poll (contract, "Priorities").
      if (cycleDue) await urgent(stopped.signal);
      if (stopping) break;
      // A poll inside the platform's Retry-After window is dropped: the next tick after it polls.
      if (cycleDue && !pace.mayStart(clock.now())) cycleDue = false;
      if (cycleDue) await cycle();
      if (stopping) break;
      if (named.size > 0) await absorbNamed();
      // A tick that came during the cycle waits for one drain slice, so that draining never starves.
      const wait = await drain();
      if (stopping || cycleDue || named.size > 0) continue;
      const resume = resumeAt === null ? Number.POSITIVE_INFINITY : Math.max(0, resumeAt - clock.now());
      const until = Math.min(wait, resume);
      if (until > 0) await idle(until);
    }
  }

  return {
    status: () => ({
      ...status,
      cycles: { ...status.cycles },
      poll: pace.stats(),
      streamsStopped: stoppedStreams(ctx.state.cursorRefused),
    }),
    issueChanged(repo, number) {
      if (stopping) return;
      const key = `${repo.toLowerCase()}#${number}`;
      if (!named.has(key) && named.size >= MAX_NAMED) {
        if (!overflowLogged) {
          logger.warn(
            { waiting: named.size },
            "too many issues named by webhooks wait; the next poll reads the others",
          );
          overflowLogged = true;
        }
        return;
      }
      named.set(key, { repo, number });
      // Between two drain entries or in an idle wait; a cycle in progress finishes first.
      poke();
    },
    stop() {
      if (stopping) return;
      stopping = true;
      if (status.phase !== "stopped") status.phase = "stopping";
      stopped.abort(new Error("stopping"));
      cycleStop?.abort(new Error("stopping"));
      poke();
    },
    async run() {
      const unsubscribe = ctx.subscribe(countWrites);
      handle = opts.scheduler.start(() => {
        pace.ticked(cycleDue);
        cycleDue = true;
        poke();
      });
      status.periodMs = handle.periodMs();
      if (!stopping) status.phase = "running";
      try {
        await loop();
      } finally {
        handle.stop();
        unsubscribe();
        handle = null;
        try {
          await persist(ctx);
        } catch (e) {
          logger.error({ err: e }, "saving the state at shutdown failed; the next start recovers");
        }
        status.phase = "stopped";
      }
    },
  };
}
