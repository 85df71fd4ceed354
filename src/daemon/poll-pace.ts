import type { Logger } from "../observability/index.js";

/** When a scheduled poll may start: never inside the platform's Retry-After window; late ticks merge. */

export interface PollStats {
  /** Milliseconds between the starts of the last two polls; null until two have started. */
  intervalMs: number | null;
  /** Scheduled ticks that started no poll of their own, by why. */
  skipped: { retry_after: number; busy: number };
}

export interface PollPace {
  /** A scheduled tick came; `alreadyDue`: a poll was due and not started yet (the tick merges into it). */
  ticked(alreadyDue: boolean): void;
  /** Whether a due poll may start at `now`; when not, the poll is dropped until the next tick. */
  mayStart(now: number): boolean;
  /** A poll started at `at`. */
  started(at: number): void;
  stats(): PollStats;
}

export interface PollPaceOptions {
  /** Epoch ms before which the platform asked not to be called, while that is still ahead. */
  notBefore: () => number | undefined;
  logger: Logger;
}

export function createPollPace(opts: PollPaceOptions): PollPace {
  let lastStart: number | null = null;
  let intervalMs: number | null = null;
  const skipped = { retry_after: 0, busy: 0 };
  /** The window last said in the log: one line per Retry-After, not one per skipped tick. */
  let announced: number | undefined;
  return {
    ticked(alreadyDue) {
      if (alreadyDue) skipped.busy += 1;
    },
    mayStart(now) {
      const notBefore = opts.notBefore();
      if (notBefore === undefined || notBefore <= now) return true;
      skipped.retry_after += 1;
      if (announced !== notBefore) {
        announced = notBefore;
        opts.logger.info(
          { not_before: new Date(notBefore).toISOString() },
          "the platform asked for a pause (Retry-After); the next poll is the first scheduled one after it",
        );
      }
      return false;
    },
    started(at) {
      if (lastStart !== null) intervalMs = Math.max(0, at - lastStart);
      lastStart = at;
    },
    stats: () => ({ intervalMs, skipped: { ...skipped } }),
  };
}
