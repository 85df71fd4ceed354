/**
 * How long a backlog of GitHub writes takes at the configured write budget (contract,
 * `github.write_budget`): the steadiest of the three limits decides. Pure arithmetic for `status`,
 * the `sync` progress line and the daemon's progress log.
 */

export interface BudgetLimits {
  perMinute: number;
  perHour: number;
  minIntervalMs: number;
}

/** Writes per minute the budget allows in the long run; Infinity when nothing limits them. */
export function writesPerMinute(b: BudgetLimits): number {
  const limits = [
    b.perMinute > 0 ? b.perMinute : Infinity,
    b.perHour > 0 ? b.perHour / 60 : Infinity,
    b.minIntervalMs > 0 ? 60_000 / b.minIntervalMs : Infinity,
  ];
  return Math.min(...limits);
}

/** Seconds to carry out `writes` writes at the budget; null when the budget sets no limit. */
export function etaSeconds(writes: number, b: BudgetLimits): number | null {
  const rate = writesPerMinute(b);
  if (!Number.isFinite(rate)) return null;
  return Math.ceil((writes / rate) * 60);
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

/** An ETA as an operator reads it. */
export function formatEta(writes: number, b: BudgetLimits): string {
  if (writes === 0) return "nothing queued";
  const eta = etaSeconds(writes, b);
  return eta === null ? "no write budget set: as fast as GitHub answers" : `about ${formatDuration(eta)}`;
}

/** "2026-11-23T04:10:00.000Z (3 min ago)": ISO for logs and scripts, the age for a person. */
export function formatWhen(iso: string, nowMs: number): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const age = (nowMs - at) / 1000;
  return `${iso} (${age >= 0 ? `${formatDuration(age)} ago` : `in ${formatDuration(-age)}`})`;
}
