/**
 * "Did you mean" for unknown keys and enum values (contract: "Unknown keys are errors (with a
 * 'did you mean' where one fits)").
 */

/** Levenshtein distance; inputs are config keys, so the quadratic table is tiny. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** Same key but for case, `_`, `-` or spaces: `perHour`, `Per-Hour` and `per_hour` are variants. */
function normalize(word: string): string {
  return word.toLowerCase().replace(/[_\-\s]/g, "");
}

/**
 * The closest candidate within edit distance 2 (1 for words under 4 characters, where 2 edits
 * turn anything into anything), or a case/underscore variant; undefined when none fits.
 */
export function suggest(word: string, candidates: readonly string[]): string | undefined {
  const limit = word.length < 4 ? 1 : 2;
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    if (candidate === word) continue;
    const distance =
      normalize(candidate) === normalize(word)
        ? 0
        : editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}
