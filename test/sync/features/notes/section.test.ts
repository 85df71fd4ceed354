import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BEGIN,
  END,
  findSection,
  plainText,
  renderSection,
  sectionHash,
  sectionSpans,
  spliceNote,
} from "../../../../src/sync/features/notes/section.js";

const S1 = `${BEGIN}\nIssue: acme/t#1 https://x/1\nState: open\n${END}`;
const S2 = `${BEGIN}\nIssue: acme/t#1 https://x/1\nState: closed (completed)\n${END}`;

describe("the note's section (contract, notes: text outside the section is never changed or lost)", () => {
  it("appends the section after a blank line to a note without one", () => {
    expect(spliceNote("Analyst: call Bob.", S1)).toBe(`Analyst: call Bob.\n\n${S1}`);
    expect(spliceNote("Analyst: call Bob.\n", S1)).toBe(`Analyst: call Bob.\n\n${S1}`);
  });

  it("an empty note gets just the section", () => {
    expect(spliceNote("", S1)).toBe(S1);
  });

  it("replaces only the section, keeping text before and after byte for byte", () => {
    const note = `before\n\n${S1}\nafter  \n`;
    expect(spliceNote(note, S2)).toBe(`before\n\n${S2}\nafter  \n`);
  });

  it("a CRLF note keeps its line endings outside; the section is read back", () => {
    const crlf = `a\r\nb\r\n`;
    const once = spliceNote(crlf, S1);
    expect(once).toBe(`a\r\nb\r\n\r\n${S1}`);
    const crlfSection = S1.replace(/\n/g, "\r\n");
    const note = `x\r\n${crlfSection}\r\ny\r\n`;
    expect(spliceNote(note, S2)).toBe(`x\r\n${S2}\r\ny\r\n`);
  });

  it("only one marker (a begin without end, or an end without begin) is the analyst's text: a section is appended", () => {
    expect(spliceNote(`${BEGIN}\nmine`, S1)).toBe(`${BEGIN}\nmine\n\n${S1}`);
    expect(spliceNote(`mine\n${END}`, S1)).toBe(`mine\n${END}\n\n${S1}`);
    // And the next write replaces the appended section, not the dangling begin's text.
    const twice = spliceNote(spliceNote(`${BEGIN}\nmine`, S1), S2);
    expect(twice).toBe(`${BEGIN}\nmine\n\n${S2}`);
  });

  it("markers twice: the section last written (by hash) is replaced, else the last one; the copy stays", () => {
    const note = `${S1}\ncopy:\n${S2}`;
    expect(spliceNote(note, S2, sectionHash(S1))).toBe(`${S2}\ncopy:\n${S2}`);
    expect(spliceNote(note, S1)).toBe(`${S1}\ncopy:\n${S1}`);
  });

  it("marker-like lines inside people's text are quoted, so the written section is read back whole", () => {
    const section = renderSection(`said:\n${END}\n  ${BEGIN}`, 8000);
    expect(sectionSpans(section)).toEqual([{ start: 0, end: section.length, text: section }]);
    expect(section).toContain(`> ${END}`);
  });

  it("cuts a huge section to max_length with …", () => {
    const section = renderSection("x".repeat(100_000), 8000);
    expect(section.length).toBeLessThanOrEqual(8000);
    expect(section).toContain("…");
    expect(findSection(`note\n${section}`)?.text).toBe(section);
  });

  it("plain text drops hidden HTML comments and CR", () => {
    expect(plainText("a\r\nb<!-- hidden -->\r\n")).toBe("a\nb");
  });

  // The property: for any note (marker lines, CRLF and all), the result is the note with at most one
  // earlier section replaced (else the section appended), the section reads back as written, and a
  // second write of the same section changes nothing.
  it("property: analyst text survives any note; the section reads back; writing again is idempotent", () => {
    const line = fc.oneof(
      fc.string(),
      fc.constantFrom(BEGIN, END, `${BEGIN}\r`, `${END}\r`, " " + BEGIN, "--- threatbridge: other ---", ""),
    );
    const note = fc
      .tuple(fc.array(line, { maxLength: 12 }), fc.constantFrom("\n", "\r\n"))
      .map(([lines, eol]) => lines.join(eol));
    const body = fc.array(fc.oneof(fc.string(), fc.constantFrom(BEGIN, END)), { maxLength: 5 });
    fc.assert(
      fc.property(note, body, (n, b) => {
        const section = renderSection(b.join("\n"), 500);
        const out = spliceNote(n, section);
        const old = findSection(n);
        if (old) {
          expect(out).toBe(n.slice(0, old.start) + section + n.slice(old.end));
        } else {
          expect(out.startsWith(n)).toBe(true);
          expect(out.endsWith(section)).toBe(true);
          expect(out.length - n.length - section.length).toBeLessThanOrEqual(4);
        }
        expect(findSection(out, sectionHash(section))?.text).toBe(section);
        expect(spliceNote(out, section, sectionHash(section))).toBe(out);
      }),
      { numRuns: 500 },
    );
  });
});
