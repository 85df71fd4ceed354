import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ThreatRecord } from "../../../src/sync/schema.js";
import { readSlice, writeSlice, type NotesSlice } from "../../../src/sync/features/notes/slice.js";
import { decodeSlice, encodeSlice, itemOf } from "../../../src/sync/features/project/slice.js";

/**
 * The two conversation features keep a slice on every synced threat (up to 100,000): each stores
 * its common case compactly (notes: the section's hash alone; project: tab-separated cells) and
 * reads back exactly what it wrote, older JSON slices included.
 */

const record: ThreatRecord = { status: "unsolved", severity: 3, assetId: null, updatedAt: "u" };

describe("the conversation features' slices, stored compactly", () => {
  it("project: any slice reads back equal, tab-separated when its text allows, JSON otherwise; old JSON reads", () => {
    fc.assert(
      fc.property(
        fc.record({
          k: fc.string(),
          i: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
          v: fc.dictionary(fc.string(), fc.string()),
        }),
        (slice) => {
          const text = encodeSlice(slice);
          expect(decodeSlice(text)).toEqual(slice);
          expect(decodeSlice(JSON.stringify(slice))).toEqual(slice);
        },
      ),
    );
    const common = { k: "acme/sec#12", i: 4711, v: { Severity: "1abc" } };
    expect(encodeSlice(common)).toBe("4711\tacme/sec#12\tSeverity\t1abc");
  });

  it("notes: a slice holding only the section's hash is that hash; any other reads back equal through JSON", () => {
    const comment = fc.tuple(fc.integer(), fc.string(), fc.string(), fc.string());
    const slice: fc.Arbitrary<NotesSlice> = fc.record(
      {
        w: fc.string({ minLength: 1 }),
        a: fc.array(fc.string(), { minLength: 1 }),
        m: fc.string(),
        c: fc.array(comment, { minLength: 1 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(slice, (s) => {
        expect(readSlice(writeSlice(record, s))).toEqual(s);
      }),
    );
    expect(writeSlice(record, { w: "Qm9vZ2xlZ29vZ2xl" }).slices).toEqual({ notes: "Qm9vZ2xlZ29vZ2xl" });
  });
});

describe("the project's count reads only a slice's item", () => {
  it("gives the item of a compact or a JSON slice, and nothing for text that is neither", () => {
    const slice = { k: "acme/sec#12", i: 4711, v: { Severity: "1abc" } };
    expect(itemOf(encodeSlice(slice))).toBe(4711);
    expect(itemOf(JSON.stringify({ ...slice, i: 0 }))).toBe(0);
    expect(itemOf("not a slice")).toBeUndefined();
  });
});
