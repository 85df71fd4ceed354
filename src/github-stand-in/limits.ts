import type { Clock } from "../shared/clock.js";
import type { StandInOptions } from "./types.js";

const HOUR_MS = 60 * 60 * 1000;
const MINUTE_MS = 60 * 1000;

interface PrimarySnapshot {
  limit: number;
  used: number;
  remaining: number;
  /** Epoch seconds at which the window resets. */
  reset: number;
}

/** GitHub's primary limit: a budget of points per hour window that starts at the first request. */
export function createPrimaryLimit(perHour: number, clock: Clock) {
  let used = 0;
  let resetAt = clock.now() + HOUR_MS;
  const roll = (): void => {
    const now = clock.now();
    if (now >= resetAt) {
      used = 0;
      resetAt = now + HOUR_MS;
    }
  };
  return {
    exhausted(): boolean {
      roll();
      return used >= perHour;
    },
    spend(): void {
      roll();
      used += 1;
    },
    snapshot(): PrimarySnapshot {
      roll();
      return {
        limit: perHour,
        used,
        remaining: Math.max(0, perHour - used),
        reset: Math.ceil(resetAt / 1000),
      };
    },
  };
}

export type PrimaryLimit = ReturnType<typeof createPrimaryLimit>;

/** GitHub's secondary limit on content-creating requests, per rolling minute and hour; refusals do not count. */
export function createSecondaryLimit(opts: StandInOptions["secondaryLimit"], clock: Clock) {
  const accepted: number[] = [];
  return {
    /** Seconds to wait, or null when the request may go ahead (and is then counted). */
    admit(): number | null {
      if (!opts) return null;
      const now = clock.now();
      while (accepted.length > 0 && (accepted[0] ?? now) <= now - HOUR_MS) accepted.shift();
      const inMinute = accepted.filter((t) => t > now - MINUTE_MS);
      let waitMs = 0;
      if (inMinute.length >= opts.perMinute) {
        waitMs = (inMinute[inMinute.length - opts.perMinute] ?? now) + MINUTE_MS - now;
      }
      if (accepted.length >= opts.perHour) {
        waitMs = Math.max(waitMs, (accepted[accepted.length - opts.perHour] ?? now) + HOUR_MS - now);
      }
      if (waitMs > 0) return opts.retryAfterSeconds ?? Math.max(1, Math.ceil(waitMs / 1000));
      accepted.push(now);
      return null;
    },
  };
}
