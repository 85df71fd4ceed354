/** Orders two ISO 8601 times by the instant they name, not their text; a non-time falls back to text order. */
export function compareIso(a: string, b: string): number {
  if (a === b) return 0;
  const am = Date.parse(a);
  const bm = Date.parse(b);
  if (Number.isFinite(am) && Number.isFinite(bm)) return am - bm;
  return a < b ? -1 : a > b ? 1 : 0;
}
