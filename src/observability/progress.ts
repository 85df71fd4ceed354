import type { Logger } from "pino";
import { formatEta, etaSeconds, type BudgetLimits } from "./eta.js";

/**
 * Progress while working (issue 8, item 2), sampled from the engine's counters and queue from the
 * outside, so the engine stays as it is: a line on the terminal during `sync`, refreshed at most
 * once a second, and one `info` log line a minute while the daemon drains a backlog.
 */

export interface ProgressSample {
  /** Threats read from the stream this cycle. */
  read: number;
  /** Threats whose reading made work due. */
  planned: number;
  /** Writes done to either side this cycle. */
  written: number;
  /** Queue entries left. */
  queued: number;
}

const WRITES = [
  "issues_created",
  "issues_updated",
  "issues_state_changed",
  "comments_created",
  "platform_verdicts",
  "platform_links",
];

/** From the engine's counters (src/sync/context.ts) and the queue's size. */
export function sampleFrom(counters: Record<string, number>, queued: number): ProgressSample {
  const c = (name: string): number => counters[name] ?? 0;
  // threats_read is counted when the walk ends; the per-threat counters move while it runs.
  const walked =
    c("threats_due") + c("threats_unchanged") + c("threats_redelivered") + c("malformed_threats");
  return {
    read: Math.max(c("threats_read"), walked),
    planned: c("threats_due"),
    written: WRITES.reduce((sum, name) => sum + c(name), 0),
    queued,
  };
}

export function progressLine(s: ProgressSample, budget: BudgetLimits): string {
  return `read ${s.read} threats, planned ${s.planned}, written ${s.written}, queued ${s.queued}; ETA ${formatEta(s.queued, budget)}`;
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
  budget: BudgetLimits;
  write: (text: string) => void;
  /** A terminal: the line is redrawn in place. Otherwise (forced for tests) one line per refresh. */
  inPlace: boolean;
  ticker?: Ticker;
}

/** Starts the `sync` progress line, refreshed once a second; `stop()` clears it. */
export function startTerminalProgress(opts: TerminalProgressOptions): { stop(): void } {
  const ticker = opts.ticker ?? realTicker;
  let last = "";
  const draw = (): void => {
    const line = progressLine(opts.sample(), opts.budget);
    if (line === last) return;
    last = line;
    opts.write(opts.inPlace ? `\r\u001b[2K${line}` : `${line}\n`);
  };
  const timer = ticker.every(1000, draw);
  return {
    stop() {
      timer.cancel();
      if (opts.inPlace && last !== "") opts.write("\r\u001b[2K");
    },
  };
}

export interface DrainProgressOptions {
  logger: Pick<Logger, "info">;
  now: () => number;
  budget: BudgetLimits;
  /** Default one minute (issue 8: "a progress line every minute while a backlog drains"). */
  everyMs?: number;
}

/**
 * The daemon's progress log: called after each slice of draining with the queue left and the writes
 * done so far; logs one `info` line when a backlog remains and a minute has passed since the last.
 */
export function drainProgress(opts: DrainProgressOptions): (written: number, queued: number) => void {
  const every = opts.everyMs ?? 60_000;
  let lastAt: number | null = null;
  let writtenAtLast = 0;
  return (written, queued) => {
    const now = opts.now();
    if (queued === 0) {
      lastAt = null;
      return;
    }
    if (lastAt === null) {
      // The backlog's first sight starts the minute; the first line comes a minute into draining.
      lastAt = now;
      writtenAtLast = written;
      return;
    }
    if (now - lastAt < every) return;
    const eta = etaSeconds(queued, opts.budget);
    opts.logger.info(
      { queued, writtenSinceLast: written - writtenAtLast, etaSeconds: eta },
      `progress: ${queued} queued, ${written - writtenAtLast} written in the last minute; ETA ${formatEta(queued, opts.budget)}`,
    );
    lastAt = now;
    writtenAtLast = written;
  };
}
