import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toJson } from "../../src/sync/records/to-json.js";

describe("engine values as the JSON the store keeps", () => {
  it("equals a JSON.stringify round trip for any JSON value, with undefined members dropped", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(toJson(value)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 300 },
    );
    const record = {
      status: "unsolved",
      refused: undefined,
      issue: { number: 3, hash: undefined },
      list: [1, undefined],
    };
    expect(toJson(record)).toEqual(JSON.parse(JSON.stringify(record)));
    expect(toJson({ n: Number.NaN })).toEqual({ n: null });
    // A "__proto__" key of parsed JSON is a member like any other, not the prototype.
    expect(toJson(JSON.parse('{"__proto__":{"a":1}}'))).toEqual(JSON.parse('{"__proto__":{"a":1}}'));
  });

  it("refuses what JSON cannot hold", () => {
    expect(() => toJson({ f: () => 1 })).toThrow(TypeError);
  });
});
