import { describe, expect, it } from "vitest";
import { fieldValue, findField } from "../../../../src/sync/features/project/values.js";
import type { ProjectField } from "../../../../src/github/project-schemas.js";
import { SEVERITY_OPTIONS } from "./fake-projects.js";

const select: ProjectField = { id: 1, name: "Severity", type: "single_select", options: SEVERITY_OPTIONS };
const date: ProjectField = { id: 2, name: "Due", type: "date", options: [] };
const text: ProjectField = { id: 3, name: "Asset", type: "text", options: [] };
const number: ProjectField = { id: 4, name: "Days", type: "number", options: [] };

// Contract, "The conversation back" (projects): text and number fields get the rendered text, date
// fields YYYY-MM-DD (empty leaves the field unset), single-select fields the option of that name
// (case-insensitive; none → left unset).
describe("a project field's value from its rendered text", () => {
  it("a single-select field gets the option of that name, case-insensitively, by the option's id", () => {
    expect(fieldValue(select, "critical")).toEqual({ set: true, value: "opt-crit" });
    expect(fieldValue(select, "HIGH")).toEqual({ set: true, value: "opt-high" });
    expect(fieldValue(select, " Medium \n")).toEqual({ set: true, value: "opt-med" });
  });

  it("a single-select value with no option of its name is left unset (said by the caller)", () => {
    expect(fieldValue(select, "informational")).toEqual({ set: false, why: "no_option" });
  });

  it("a date field gets YYYY-MM-DD, from a day or a timestamp; an empty date leaves the field unset", () => {
    expect(fieldValue(date, "2026-02-01")).toEqual({ set: true, value: "2026-02-01" });
    expect(fieldValue(date, "2026-02-01T10:00:00Z")).toEqual({ set: true, value: "2026-02-01" });
    expect(fieldValue(date, "")).toEqual({ set: false, why: "empty" });
    expect(fieldValue(date, "  ")).toEqual({ set: false, why: "empty" });
    expect(fieldValue(date, "2026-02-30")).toEqual({ set: false, why: "not_a_date" });
    expect(fieldValue(date, "soon")).toEqual({ set: false, why: "not_a_date" });
  });

  it("a text field gets the rendered text as it is; a number field the number it reads as", () => {
    expect(fieldValue(text, "shop.example.com")).toEqual({ set: true, value: "shop.example.com" });
    expect(fieldValue(number, "12")).toEqual({ set: true, value: 12 });
    expect(fieldValue(number, "twelve")).toEqual({ set: false, why: "not_a_number" });
  });

  it("a field is found by its configured name, exactly first, else case-insensitively", () => {
    expect(findField([select, date], "severity")?.id).toBe(1);
    expect(findField([select, { ...select, id: 9, name: "severity" }], "severity")?.id).toBe(9);
    expect(findField([select], "Priority")).toBeUndefined();
  });
});
