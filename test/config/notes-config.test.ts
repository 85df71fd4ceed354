import { describe, expect, it } from "vitest";
import { errorOf, minimalPlus, parse, problemAt } from "./helpers.js";

// Contract, "The conversation back": `notes` and `fields.threat.note`.
describe("notes config", () => {
  it("off unless configured; defaults comments 3, max_length 8000, no template, to_github false; fields.threat.note defaults to note", () => {
    expect(parse(minimalPlus()).config.notes).toBeUndefined();
    const { config } = parse(minimalPlus("notes: {}"));
    expect(config.notes).toEqual({ comments: 3, max_length: 8000, template: "", to_github: false });
    expect(config.fields.threat.note).toBe("note");
  });

  it("a bad template, a negative count or an unknown key is an error at its line", () => {
    const bad = errorOf(minimalPlus("notes:", '  template: "{{ issue.nope }}"'));
    expect(bad.message).toContain("test.yaml");
    expect(problemAt(bad, "notes.template").message).toMatch(/invalid template.*issue\.nope/);
    expect(problemAt(bad, "notes.template").line).toBe(10);
    expect(problemAt(errorOf(minimalPlus("notes:", "  comments: -1")), "notes.comments").line).toBe(10);
    expect(problemAt(errorOf(minimalPlus("notes:", "  max_length: 0")), "notes.max_length").line).toBe(10);
    expect(errorOf(minimalPlus("notes:", "  coments: 2")).message).toMatch(/coments/);
  });

  it("notes.to_github (the analyst's words on GitHub) is a boolean; anything else is an error at its line", () => {
    expect(parse(minimalPlus("notes:", "  to_github: true")).config.notes?.to_github).toBe(true);
    expect(problemAt(errorOf(minimalPlus("notes:", '  to_github: "yes"')), "notes.to_github").line).toBe(10);
    expect(errorOf(minimalPlus("notes:", "  to_gihub: true")).message).toMatch(/to_gihub/);
  });

  it("fields.threat.note is a dotted path", () => {
    const { config } = parse(minimalPlus("fields:", "  threat:", "    note: meta.note"));
    expect(config.fields.threat.note).toBe("meta.note");
    expect(
      problemAt(errorOf(minimalPlus("fields:", "  threat:", '    note: "a..b"')), "fields.threat.note").line,
    ).toBe(11);
  });
});
