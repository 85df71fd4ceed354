import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isoCanonicalMs } from "../../src/shared/iso-time.js";

/** The re-delivery test reads updated_at without a Date (spec "Events": a version is its updated_at). */
const LAST_MS_OF_9999 = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const FIRST_MS_OF_0000 = -62_167_219_200_000;

describe("isoCanonicalMs: toISOString's own form, read without a Date", () => {
  it("gives back the instant of every toISOString of years 0000-9999", () => {
    fc.assert(
      fc.property(fc.integer({ min: FIRST_MS_OF_0000, max: LAST_MS_OF_9999 }), (ms) => {
        expect(isoCanonicalMs(new Date(ms).toISOString())).toBe(ms);
      }),
      { numRuns: 2_000 },
    );
  });

  it("a string it reads is exactly the toISOString of what it gives (no other text names the same instant)", () => {
    const digit = fc.constantFrom(..."0123456789");
    const field = (n: number) => fc.array(digit, { minLength: n, maxLength: n }).map((d) => d.join(""));
    const nearIso = fc
      .tuple(field(4), field(2), field(2), field(2), field(2), field(2), field(3))
      .map(([y, mo, d, h, mi, s, ms]) => `${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}Z`);
    fc.assert(
      fc.property(fc.oneof(nearIso, fc.string()), (s) => {
        const ms = isoCanonicalMs(s);
        if (ms !== null) expect(new Date(ms).toISOString()).toBe(s);
      }),
      { numRuns: 5_000 },
    );
  });

  it("refuses other spellings of a valid instant, and impossible dates", () => {
    for (const s of [
      "2025-11-23T21:24:46.335+00:00",
      "2025-11-23T21:24:46Z",
      "2025-11-23 21:24:46.335Z",
      "2025-02-29T00:00:00.000Z",
      "2024-13-01T00:00:00.000Z",
      "2024-06-31T00:00:00.000Z",
      "2024-06-30T24:00:00.000Z",
      "+012025-01-01T00:00:00.000Z",
      "",
    ]) {
      expect(isoCanonicalMs(s)).toBeNull();
    }
    expect(isoCanonicalMs("2024-02-29T23:59:59.999Z")).toBe(Date.UTC(2024, 1, 29, 23, 59, 59, 999));
    expect(isoCanonicalMs("0050-03-01T00:00:00.000Z")).toBe(new Date("0050-03-01T00:00:00.000Z").getTime());
  });
});
