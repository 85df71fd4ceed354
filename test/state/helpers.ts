import fc from "fast-check";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh temporary directory per test, removed afterwards. */
export async function withTempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "threatbridge-state-"));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * A record's `slices` (ThreatRecord.slices: an opaque string per plug-in feature name), of every
 * shape the table must give back equal: the empty string, unicode, long strings, many features,
 * and names an object treats specially (`__proto__`, `constructor`, the empty name). Built with
 * Object.fromEntries so that `__proto__` is an own key, as JSON.parse makes it.
 */
export const slicesArbitrary: fc.Arbitrary<Record<string, string>> = fc
  .uniqueArray(
    fc.tuple(
      fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom("notes", "project") },
        {
          weight: 1,
          arbitrary: fc.constantFrom("__proto__", "constructor", "toString", "", "a\u0000b", "é"),
        },
        { weight: 1, arbitrary: fc.string() },
      ),
      fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom("h=1a2b3c;c=IC_kwDOA123", "i=PVTI_lADOB;f=PVTF_x") },
        { weight: 1, arbitrary: fc.constantFrom("", "\u{1F600} ünïcödé \u2028", "x".repeat(5_000)) },
        { weight: 2, arbitrary: fc.string({ unit: "grapheme" }) },
        { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 12 }) },
      ),
    ),
    { minLength: 1, maxLength: 12, selector: ([name]) => name },
  )
  .map((entries) => Object.fromEntries(entries));
