import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ACCEPTANCE,
  AcceptanceSlice,
  acceptanceOf,
  acceptanceSoughtOf,
} from "../../../../src/sync/features/acceptance/slice.js";

/**
 * An acceptance slice in the shape the engine writes is read without the schema (slice.ts
 * `plainSlice`: `status` lists every stored acceptance). Whatever the stored JSON holds, what the
 * feature reads is what the schema would give: the same value, keys in the same order.
 */
describe("the acceptance slice read without the schema", () => {
  it("gives what the schema gives, for slices of every shape (property)", () => {
    const odd = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant({}));
    const text = fc.oneof(fc.string(), odd);
    const step = fc.oneof(fc.constantFrom("accepted", "announced", "warned", "expired"), text);
    const held = fc.oneof(
      fc.record(
        { until: text, since: text, by: text, step, extra: odd },
        { requiredKeys: ["until", "since", "by", "step"] },
      ),
      fc.record({ until: text, since: text, by: text, step }, { requiredKeys: [] }),
      odd,
    );
    const slice = fc.oneof(fc.record({ held, sought: text, other: odd }, { requiredKeys: [] }), odd);
    fc.assert(
      fc.property(slice, (value) => {
        const record = { slices: { [ACCEPTANCE]: JSON.stringify(value) } };
        const schema = AcceptanceSlice.safeParse(value).data;
        const read = acceptanceOf(record);
        expect(read).toEqual(schema?.held);
        expect(JSON.stringify(read)).toBe(JSON.stringify(schema?.held));
        expect(acceptanceSoughtOf(record)).toBe(schema?.sought);
      }),
      { numRuns: 500 },
    );
  });
});
