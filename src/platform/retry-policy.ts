import type { Clock } from "../shared/clock.js";

/** Pure retry arithmetic shared by the token cache and the API transport. */

export interface BackoffOptions {
  /** First delay before jitter. */
  baseMs: number;
  /** No single wait is longer than this (Retry-After excepted, see `retryAfterMs`). */
  capMs: number;
}

// A 500 is usually momentary: the first retry comes after 125–250 ms, not half a second.
const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 250, capMs: 30_000 };

/** Capped exponential back-off with equal jitter: no wait collapses to zero. `attempt` counts from 0. */
export function backoffMs(
  attempt: number,
  random: () => number,
  opts: BackoffOptions = DEFAULT_BACKOFF,
): number {
  const step = Math.min(opts.capMs, opts.baseMs * 2 ** Math.min(attempt, 30));
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.round(step / 2 + (step / 2) * r);
}

/** Milliseconds a `Retry-After` asks for (seconds, or an HTTP date), or undefined. */
export function retryAfterMs(header: string | undefined, clock: Clock): number | undefined {
  if (header === undefined) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - clock.now());
}

/** Statuses worth another try: rate limited, or the server failed (spec "Errors": 429, 500). */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}
