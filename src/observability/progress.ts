import type { Logger } from "pino";
import { isWrite, type EngineObserver } from "../shared/index.js";
import { formatEta } from "./eta.js";

/**
 * Progress while working: a line on the terminal during `sync`, refreshed at most
 * once a second, and one `info` log line a minute while the daemon drains a backlog. The line's
 * numbers come from an observer of the engine's events and the queue's size.
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

export interface ProgressTally {
  /** Subscribe it to the engine's events (`ctx.subscribe`). */
  observe: EngineObserver;
  sample(queued: number): ProgressSample;
}

/** Counts threats read, planned and writes done, from the engine's events; a new cycle starts afresh. */
export function progressTally(): ProgressTally {
  let walked = 0;
  let streamRead = 0;
  let planned = 0;
  let written = 0;
  return {
    observe(event) {
      if (isWrite(event)) written += 1;
      else if (event.type === "cycle_started") walked = streamRead = planned = written = 0;
      else if (event.type === "stream_read" && event.stream === "threats") streamRead += event.items;
      else if (event.type === "item_malformed" && event.stream === "threats") walked += 1;
      else if (event.type === "threat_unchanged" || event.type === "threat_redelivered") walked += 1;
      else if (event.type === "threat_due") {
        walked += 1;
        planned += 1;
      }
    },
    // The walk's total comes when it ends; the per-threat events move the line while it runs.
    sample: (queued) => ({ read: Math.max(streamRead, walked), planned, written, queued }),
  };
}

/** Seconds the given number of queued writes takes now (observability/eta.ts `drainSeconds`); null: no limit binds. */
export type EtaOf = (writes: number) => number | null;

export function progressLine(s: ProgressSample, eta: EtaOf): string {
  return `read ${s.read} threats, planned ${s.planned}, written ${s.written}, queued ${s.queued}; ETA ${formatEta(s.queued, eta(s.queued))}`;
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
    const line = progressLine(opts.sample(), opts.eta);
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
  /** Default one minute: a long drain shows a line every minute, never goes silent. */
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
    const eta = opts.eta(queued);
    opts.logger.info(
      { queued, written_since_last: written - writtenAtLast, eta_seconds: eta },
      `progress: ${queued} queued, ${written - writtenAtLast} written in the last minute; ETA ${formatEta(queued, eta)}`,
    );
    lastAt = now;
    writtenAtLast = written;
  };
}
