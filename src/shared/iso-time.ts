/** Orders two ISO 8601 times by the instant they name, not their text; a non-time falls back to text order. */
export function compareIso(a: string, b: string): number {
  if (a === b) return 0;
  const am = Date.parse(a);
  const bm = Date.parse(b);
  if (Number.isFinite(am) && Number.isFinite(bm)) return am - bm;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Epoch ms of a time in the exact form `Date.prototype.toISOString` gives for years 0000–9999
 * (`YYYY-MM-DDTHH:mm:ss.sssZ`), its digits read in place (no Date or string built: it runs once per
 * stored SLA time); null for any other text. For such a string s,
 * `new Date(isoCanonicalMs(s)).toISOString() === s`: each field is in range, so no other text gives the same instant.
 */
const CANONICAL = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const FOUR_CENTURIES_MS = 146_097 * 86_400_000;

function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

export function isoCanonicalMs(s: string): number | null {
  if (!CANONICAL.test(s)) return null;
  const n = (from: number, to: number): number => {
    let v = 0;
    for (let i = from; i < to; i++) v = v * 10 + (s.charCodeAt(i) - 48);
    return v;
  };
  const [year, month, day] = [n(0, 4), n(5, 7), n(8, 10)];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  if (n(11, 13) > 23 || n(14, 16) > 59 || n(17, 19) > 59) return null;
  // Date.UTC reads years 0–99 as 1900–1999; 400 Gregorian years are exactly 146,097 days.
  const early = year < 100;
  const ms = Date.UTC(early ? year + 400 : year, month - 1, day, n(11, 13), n(14, 16), n(17, 19), n(20, 23));
  return early ? ms - FOUR_CENTURIES_MS : ms;
}
