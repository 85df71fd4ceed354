import type { ProjectField, ProjectFieldValue } from "../../../github/project-schemas.js";

/** What a rendered field text becomes on the board (contract, "Projects"): text, number, date or option. */
export type FieldDecision =
  | { set: true; value: ProjectFieldValue }
  | { set: false; why: "empty" | "no_option" | "not_a_date" | "not_a_number" | "unsupported" };

const DATE = /^(\d{4})-(\d{2})-(\d{2})/;

/** The day of a rendered date: `2026-02-01` or an ISO timestamp's day; anything else is not a date. */
function dayOf(text: string): string | null {
  const m = DATE.exec(text);
  if (!m) return null;
  const day = `${m[1]}-${m[2]}-${m[3]}`;
  const parsed = new Date(`${day}T00:00:00Z`);
  return Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== day ? null : day;
}

export function fieldValue(field: ProjectField, rendered: string): FieldDecision {
  const text = rendered.trim();
  switch (field.type) {
    case "text":
      return { set: true, value: rendered };
    case "number": {
      if (text === "") return { set: false, why: "empty" };
      const n = Number(text);
      return Number.isFinite(n) ? { set: true, value: n } : { set: false, why: "not_a_number" };
    }
    case "date": {
      if (text === "") return { set: false, why: "empty" };
      const day = dayOf(text);
      return day === null ? { set: false, why: "not_a_date" } : { set: true, value: day };
    }
    case "single_select": {
      if (text === "") return { set: false, why: "empty" };
      const wanted = text.toLowerCase();
      const option = field.options.find((o) => o.name.trim().toLowerCase() === wanted);
      return option ? { set: true, value: option.id } : { set: false, why: "no_option" };
    }
    default:
      return { set: false, why: "unsupported" };
  }
}

/** A field found by its configured name: exactly, else case-insensitively. */
export function findField(fields: readonly ProjectField[], name: string): ProjectField | undefined {
  return (
    fields.find((f) => f.name === name) ?? fields.find((f) => f.name.toLowerCase() === name.toLowerCase())
  );
}
