/** Durations carry a unit (`90d`, `36h`, `2w`); a typed date is a UTC `YYYY-MM-DD`, meaning its end. */

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
type DurationUnit = keyof typeof UNIT_MS;

export const DAY_MS = UNIT_MS.d;

const DURATION = /^(\d{1,9})(s|m|h|d|w)$/;

/** Milliseconds of a duration such as `90d`, or null when it is not one (no unit, a sign, a fraction). */
export function parseDuration(text: string): number | null {
  const match = DURATION.exec(text.trim());
  if (!match) return null;
  return Number(match[1]) * UNIT_MS[match[2] as DurationUnit];
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The epoch ms of the end of a typed UTC day, or null when it is not a real date (no rollover). */
export function endOfTypedDay(text: string): number | null {
  const match = DATE.exec(text);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const start = Date.UTC(year, month - 1, day);
  const d = new Date(start);
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return null;
  return start + DAY_MS - 1;
}

/** `YYYY-MM-DD` of an epoch ms, in UTC. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
