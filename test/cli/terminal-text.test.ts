import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fit, terminalText } from "../../src/cli/terminal-text.js";
import { escapeMarkdownInline, escapePlainText } from "../../src/sync/render/index.js";

/** Terminal text is free of zero-width characters: escaping is for GitHub, not for the terminal. */

describe("terminal text", () => {
  it("undoes the inert escaping made for GitHub: a hostname copied from the terminal is the platform's", () => {
    const raw = "db#1 open to @admin at https://db.example.com (see [x] & <y>)";
    expect(escapeMarkdownInline(raw)).not.toBe(raw);
    expect(terminalText(escapeMarkdownInline(raw))).toBe(raw);
    expect(terminalText(escapePlainText(raw))).toBe(raw);
  });

  it("never leaves a zero-width or control character, whatever the platform sent", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 80 }), (text) => {
        const shown = terminalText(escapeMarkdownInline(text));
        // eslint-disable-next-line no-control-regex -- control characters are what is checked for
        expect(shown).not.toMatch(/[\u200B-\u200F\u2060\uFEFF\u0000-\u001F\u007F-\u009F]/);
      }),
      { numRuns: 100 },
    );
  });

  it("fits long titles in a column with an ellipsis", () => {
    expect(fit("abcdef", 4)).toBe("abc…");
    expect(fit("abc", 4)).toBe("abc");
  });
});
