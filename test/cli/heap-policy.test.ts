import { describe, expect, it } from "vitest";
import {
  applyHeapPolicy,
  DEFAULT_HEAP_GROWING_PERCENT,
  heapGrowingPercent,
} from "../../src/cli/heap-policy.js";

describe("heap policy: the CLI keeps V8's heap near what is live (to bound peak RSS)", () => {
  it("sets --heap-growing-percent once at start, to the default unless THREATBRIDGE_HEAP_GROWING_PERCENT says otherwise", () => {
    const flags: string[] = [];
    const set = (f: string) => void flags.push(f);
    expect(applyHeapPolicy({}, set)).toBe(DEFAULT_HEAP_GROWING_PERCENT);
    expect(applyHeapPolicy({ THREATBRIDGE_HEAP_GROWING_PERCENT: "120" }, set)).toBe(120);
    expect(flags).toEqual([
      `--heap-growing-percent=${DEFAULT_HEAP_GROWING_PERCENT}`,
      "--heap-growing-percent=120",
    ]);
  });

  it("0 leaves V8's own choice: no flag is set", () => {
    const flags: string[] = [];
    expect(applyHeapPolicy({ THREATBRIDGE_HEAP_GROWING_PERCENT: "0" }, (f) => void flags.push(f))).toBe(0);
    expect(flags).toEqual([]);
  });

  it("a value that is not a whole percent from 0 to 1000 falls back to the default, never reaches V8", () => {
    for (const raw of ["-5", "1.5", "fifty", "1e9", "50 --expose-gc", " "]) {
      expect(heapGrowingPercent({ THREATBRIDGE_HEAP_GROWING_PERCENT: raw })).toBe(
        DEFAULT_HEAP_GROWING_PERCENT,
      );
    }
  });
});
