/**
 * How long a backlog of GitHub writes takes (contract, `github.write_budget`): for `status`, the
 * `sync` progress line, the daemon's progress log and `threatbridge_backlog_eta_seconds`. Every limit
 * that binds is counted, as the write budget (src/github/write-budget.ts) applies them: per_minute
 * and per_hour over sliding windows that already hold the writes just sent, min_interval_ms after
 * the last write, a secondary limit's Retry-After pause, and GitHub's primary rate limit when its
 * last answer showed it nearly spent. The steady rate alone is wrong for a short backlog: 100 writes
 * at the defaults (80/min, 500/h, 1 s apart) take 99 s, not the 12 min that 500/h gives.
 */

export interface BudgetLimits {
  perMinute: number;
  perHour: number;
  minIntervalMs: number;
}

/** What binds the next writes now: the budget's limits and what is already spent of them. */
export interface DrainView extends BudgetLimits {
  /** Times (epoch ms) of the writes sent in the last hour, oldest first. */
  recent: readonly number[];
  /** No write before this (epoch ms): a secondary limit's Retry-After in force. */
  pausedUntil: number | null;
  /** GitHub's primary rate limit as last seen: `remaining` writes before `resetAtMs`, `limit` an hour after. */
  rateLimit: { remaining: number; limit: number | null; resetAtMs: number } | null;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
/** Writes simulated one by one; a larger backlog's rest is added at the steady rate (an error under one window). */
const EXACT_WRITES = 50_000;

/** Writes per minute the budget allows in the long run; Infinity when nothing limits them. */
export function writesPerMinute(b: BudgetLimits): number {
  const limits = [
    b.perMinute > 0 ? b.perMinute : Infinity,
    b.perHour > 0 ? b.perHour / 60 : Infinity,
    b.minIntervalMs > 0 ? 60_000 / b.minIntervalMs : Infinity,
  ];
  return Math.min(...limits);
}

/** The view with nothing spent and nothing paused: the configured limits alone. */
export function limitsOnly(b: BudgetLimits): DrainView {
  return { ...b, recent: [], pausedUntil: null, rateLimit: null };
}

/**
 * Milliseconds from `nowMs` until the last of `writes` writes may be sent, taking the slots the
 * write budget would give them in turn; null when no limit binds (they go as fast as GitHub answers).
 */
export function drainMs(writes: number, view: DrainView, nowMs: number): number | null {
  if (writes <= 0) return 0;
  // A reset already past: the window refilled (to a limit above any write budget GitHub grants).
  const rl = view.rateLimit !== null && view.rateLimit.resetAtMs > nowMs ? view.rateLimit : null;
  const paused = view.pausedUntil !== null && view.pausedUntil > nowMs;
  if (writesPerMinute(view) === Infinity && !paused && (rl === null || rl.remaining >= writes)) return null;
  const times = view.recent.filter((t) => t > nowMs - HOUR_MS);
  const start = Math.max(nowMs, paused && view.pausedUntil !== null ? view.pausedUntil : nowMs);
  const exact = Math.min(writes, EXACT_WRITES);
  let last = start;
  for (let k = 0; k < exact; k++) {
    const g = times.length;
    let slot = start;
    if (view.minIntervalMs > 0 && g > 0) slot = Math.max(slot, (times[g - 1] ?? 0) + view.minIntervalMs);
    if (view.perMinute > 0 && g >= view.perMinute)
      slot = Math.max(slot, (times[g - view.perMinute] ?? 0) + MINUTE_MS);
    if (view.perHour > 0 && g >= view.perHour)
      slot = Math.max(slot, (times[g - view.perHour] ?? 0) + HOUR_MS);
    // Past the remaining points, a write waits for the reset (src/github/failed-attempt.ts), then for
    // the next hour's once a whole `limit` is spent.
    if (rl !== null && k >= rl.remaining) {
      const windows = rl.limit !== null && rl.limit > 0 ? Math.floor((k - rl.remaining) / rl.limit) : 0;
      slot = Math.max(slot, rl.resetAtMs + windows * HOUR_MS);
    }
    times.push(slot);
    last = slot;
  }
  const perMinute = Math.min(writesPerMinute(view), rl?.limit ? rl.limit / 60 : Infinity);
  const rest = writes - exact;
  return last - nowMs + (rest > 0 && Number.isFinite(perMinute) ? (rest / perMinute) * MINUTE_MS : 0);
}

/** Seconds to carry out `writes` writes from `nowMs` (whole seconds, up); null when no limit binds. */
export function drainSeconds(writes: number, view: DrainView, nowMs: number): number | null {
  const ms = drainMs(writes, view, nowMs);
  return ms === null ? null : Math.ceil(ms / 1000);
}

/** The view from the write budget's snapshot and GitHub's rate limit as last seen. */
export function drainView(
  budget: BudgetLimits & { recent: readonly number[]; pausedUntil: number | null },
  rateLimit: { remaining: number; limit: number | null; resetAt: string | null } | null,
): DrainView {
  const resetAtMs = rateLimit?.resetAt == null ? NaN : Date.parse(rateLimit.resetAt);
  return {
    perMinute: budget.perMinute,
    perHour: budget.perHour,
    minIntervalMs: budget.minIntervalMs,
    recent: budget.recent,
    pausedUntil: budget.pausedUntil,
    rateLimit:
      rateLimit === null || Number.isNaN(resetAtMs)
        ? null
        : { remaining: rateLimit.remaining, limit: rateLimit.limit, resetAtMs },
  };
}

/** "45 s", "12 min", "3 h 20 min", "2 d 4 h". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h${m % 60 ? ` ${m % 60} min` : ""}`;
  const d = Math.floor(h / 24);
  return `${d} d${h % 24 ? ` ${h % 24} h` : ""}`;
}

/** An ETA as an operator reads it, from `drainSeconds`; to the second under 10 min ("1 min 22 s"). */
export function formatEta(writes: number, seconds: number | null): string {
  if (writes === 0) return "nothing queued";
  if (seconds === null) return "no write budget set: as fast as GitHub answers";
  const s = Math.max(0, Math.round(seconds));
  if (s >= 60 && s < 600) return `about ${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ""}`;
  return `about ${formatDuration(s)}`;
}

/** A count as a person reads it: "4,015". */
export function formatCount(n: number): string {
  return n.toLocaleString("en-US");
}

/** The configured limits as a person reads them: "80/min, 500/h, 1 s apart"; "no write budget set". */
export function budgetText(b: BudgetLimits): string {
  const parts = [
    ...(b.perMinute > 0 ? [`${formatCount(b.perMinute)}/min`] : []),
    ...(b.perHour > 0 ? [`${formatCount(b.perHour)}/h`] : []),
    ...(b.minIntervalMs > 0
      ? [b.minIntervalMs % 1000 === 0 ? `${b.minIntervalMs / 1000} s apart` : `${b.minIntervalMs} ms apart`]
      : []),
  ];
  return parts.length === 0 ? "no write budget set" : parts.join(", ");
}

/**
 * Work waiting on the write budget, in the one word every output uses for it ("queued"), with the
 * ETA of what is known: "1,195 queued: about 2 h 3 min at 80/min, 500/h". `moreToRead`: a stream is
 * still being read, so more work may come than the ETA counts ("…, and more to read").
 */
export function queuedText(
  queued: number,
  seconds: number | null,
  budget: BudgetLimits,
  moreToRead = false,
): string {
  const more = moreToRead ? ", and more to read" : "";
  if (queued === 0) return `nothing queued${moreToRead ? " yet, more to read" : ""}`;
  const eta =
    seconds === null ? formatEta(queued, null) : `${formatEta(queued, seconds)} at ${budgetText(budget)}`;
  return `${formatCount(queued)} queued: ${eta}${more}`;
}

/** "2026-11-23T04:10:00.000Z (3 min ago)": ISO for logs and scripts, the age for a person. */
export function formatWhen(iso: string, nowMs: number): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const age = (nowMs - at) / 1000;
  return `${iso} (${age >= 0 ? `${formatDuration(age)} ago` : `in ${formatDuration(-age)}`})`;
}
