import type { Logger } from "pino";
import { isWrite, writeSide, type EngineObserver } from "../shared/index.js";
import { budgetText, formatCount, formatDuration, queuedText, type BudgetLimits } from "./eta.js";

/**
 * Progress while working: a line on the terminal during `sync`, refreshed at most
 * once a second, and one `info` log line a minute while the daemon drains a backlog. The line's
 * numbers come from an observer of the engine's events and the queue's size.
 */

export interface ProgressSample {
  /** Threats read from the stream this cycle. */
  read: number;
  /** The threat stream is still being read: more work may come than is queued. */
  reading: boolean;
  /** Threats whose reading made work due. */
  due: number;
  /** Writes done to GitHub this cycle: those the write budget paces. */
  github: number;
  /** Writes done to the platform this cycle (links, verdicts, notes). */
  platform: number;
  /** Queue entries left: work waiting on the write budget. */
  queued: number;
}

export interface ProgressTally {
  /** Subscribe it to the engine's events (`ctx.subscribe`). */
  observe: EngineObserver;
  sample(queued: number): ProgressSample;
}

/**
 * Counts threats read, threats made due and the writes to each side, from the engine's events; a
 * new cycle starts afresh. The threat stream counts as being read from the cycle's start until its
 * walk ends (`stream_read`).
 */
export function progressTally(): ProgressTally {
  let walked = 0;
  let streamRead = 0;
  let reading = false;
  let due = 0;
  const written = { github: 0, platform: 0 };
  return {
    observe(event) {
      if (isWrite(event)) written[writeSide(event)] += 1;
      else if (event.type === "cycle_started") {
        walked = streamRead = due = written.github = written.platform = 0;
        reading = true;
      } else if (event.type === "stream_read" && event.stream === "threats") {
        streamRead += event.items;
        reading = false;
      } else if (event.type === "cycle_finished") reading = false;
      else if (event.type === "item_malformed" && event.stream === "threats") walked += 1;
      else if (event.type === "threat_unchanged" || event.type === "threat_redelivered") walked += 1;
      else if (event.type === "threat_due") {
        walked += 1;
        due += 1;
      }
    },
    // The walk's total comes when it ends; the per-threat events move the line while it runs.
    sample: (queued) => ({
      read: Math.max(streamRead, walked),
      reading,
      due,
      github: written.github,
      platform: written.platform,
      queued,
    }),
  };
}

/** Seconds the given number of queued writes takes now (observability/eta.ts `drainSeconds`); null: no limit binds. */
export type EtaOf = (writes: number) => number | null;

/**
 * The `sync` progress line: reading and writing apart, and the ETA of what is queued only, at the
 * configured budget, with "and more to read" while the threat stream is still being read.
 */
export function progressLine(s: ProgressSample, eta: EtaOf, budget: BudgetLimits): string {
  const reading = s.reading
    ? `reading: ${formatCount(s.read)} threats so far, ${formatCount(s.due)} due`
    : `read: ${formatCount(s.read)} threats, ${formatCount(s.due)} due`;
  const writing = `writing: ${formatCount(s.github)} to GitHub, ${formatCount(s.platform)} to the platform`;
  return `${reading} | ${writing} | ${queuedText(s.queued, eta(s.queued), budget, s.reading)}`;
}

/** Timers as parameters, so that tests drive the refresh without real waits. */
export interface Ticker {
  every(ms: number, fn: () => void): { cancel(): void };
}

export const realTicker: Ticker = {
  every(ms, fn) {
    const handle = setInterval(fn, ms);
    return { cancel: () => clearInterval(handle) };
  },
};

export interface TerminalProgressOptions {
  sample: () => ProgressSample;
  eta: EtaOf;
  /** The configured write budget the ETA is at, named on the line. */
  budget: BudgetLimits;
  /**
   * Where the line goes: on a terminal, the writer it shares with the log records (redrawn in place,
   * below them; src/cli/terminal-writer.ts); otherwise (forced for tests) one line per refresh.
   * "" takes the line away.
   */
  display: { progress(line: string): void };
  ticker?: Ticker;
}

/** Starts the `sync` progress line, refreshed once a second; `stop()` clears it. */
export function startTerminalProgress(opts: TerminalProgressOptions): { stop(): void } {
  const ticker = opts.ticker ?? realTicker;
  let last = "";
  const draw = (): void => {
    const line = progressLine(opts.sample(), opts.eta, opts.budget);
    if (line === last) return;
    last = line;
    opts.display.progress(line);
  };
  const timer = ticker.every(1000, draw);
  return {
    stop() {
      timer.cancel();
      if (last !== "") opts.display.progress("");
    },
  };
}

export interface DrainProgressOptions {
  logger: Pick<Logger, "info">;
  now: () => number;
  eta: EtaOf;
  /** The configured write budget the ETA is at, and what the GitHub writes are read against. */
  budget: BudgetLimits;
  /** Default one minute: a long drain shows a line every minute, never goes silent. */
  everyMs?: number;
}

/** Writes done so far to each side (the daemon counts them from the engine's events, `writeSide`). */
export interface WrittenSoFar {
  github: number;
  platform: number;
}

/**
 * The daemon's progress log: called after each slice of draining with the queue left and the writes
 * done so far; logs one `info` line when a backlog remains and a minute has passed since the last.
 * GitHub's writes and the platform's are counted apart: only GitHub's are paced by the write
 * budget, so only they are read against it (a link per issue would otherwise double the count).
 */
export function drainProgress(opts: DrainProgressOptions): (written: WrittenSoFar, queued: number) => void {
  const every = opts.everyMs ?? 60_000;
  let lastAt: number | null = null;
  let atLast: WrittenSoFar = { github: 0, platform: 0 };
  return (written, queued) => {
    const now = opts.now();
    if (queued === 0) {
      lastAt = null;
      return;
    }
    if (lastAt === null) {
      // The backlog's first sight starts the minute; the first line comes a minute into draining.
      lastAt = now;
      atLast = { ...written };
      return;
    }
    if (now - lastAt < every) return;
    const eta = opts.eta(queued);
    const github = written.github - atLast.github;
    const platform = written.platform - atLast.platform;
    opts.logger.info(
      {
        queued,
        github_written_since_last: github,
        platform_written_since_last: platform,
        eta_seconds: eta,
      },
      `progress: ${queuedText(queued, eta, opts.budget)}; in the last ${formatDuration((now - lastAt) / 1000)} ` +
        `${formatCount(github)} written to GitHub (budget ${budgetText(opts.budget)}), ${formatCount(platform)} to the platform`,
    );
    lastAt = now;
    atLast = { ...written };
  };
}
