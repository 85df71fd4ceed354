/**
 * Orders two times as written by a server (ISO 8601), by the instant they name rather than by their
 * text: GitHub writes whole seconds (`…:30Z`), other servers and stand-ins milliseconds or offsets
 * (`…:30.500Z`, `…:30+00:00`), and as text `…:30Z` sorts after `…:30.500Z`. A text that is no time
 * (never seen from GitHub) falls back to the text's order, so the result is still a total order.
 * Negative: `a` is earlier; 0: the same instant; positive: `a` is later.
 */
export function compareIso(a: string, b: string): number {
  if (a === b) return 0;
  const am = Date.parse(a);
  const bm = Date.parse(b);
  if (Number.isFinite(am) && Number.isFinite(bm)) return am - bm;
  return a < b ? -1 : a > b ? 1 : 0;
}
