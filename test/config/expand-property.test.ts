import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { expandString } from "../../src/config/interpolate.js";

// Strings rich in the characters that matter: $, {, }, :, -, letters.
const tricky = fc.string({
  unit: fc.constantFrom("$", "{", "}", ":", "-", "A", "_", "x", " "),
  maxLength: 40,
});

/** The escaping an operator applies to put arbitrary text into a value: every `$` doubled. */
function escape(text: string): string {
  return text.replaceAll("$", () => "$$");
}

describe("interpolation, for any text", () => {
  it("writing every $ as $$ gives the text back unchanged, with no error", () => {
    fc.assert(
      fc.property(tricky, (text) => {
        const result = expandString(escape(text), {}, true);
        expect(result.errors).toEqual([]);
        expect(result.value).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it("a variable's value is inserted as it is, whatever it holds", () => {
    fc.assert(
      fc.property(tricky, tricky, (value, around) => {
        const safe = escape(around);
        const result = expandString(`${safe}\${V}${safe}`, { V: value }, true);
        expect(result.errors).toEqual([]);
        expect(result.value).toBe(`${around}${value}${around}`);
      }),
      { numRuns: 500 },
    );
  });
});
