// The compiler alone, not config/index.js: the planner must not build the config's schemas.
import { compileNote } from "../../config/templates.js";
import { verdictNoteScope } from "../../config/template-scopes.js";
import type { PersonChange } from "../schema.js";

/** A verdict's status note for a person's change, from its Liquid template (`verdicts.*.status_note`). */
export type NoteRenderer = (template: string | undefined, person: PersonChange) => string;

/** Whether a note has any Liquid tag or output at all; one without is sent as written. */
function isTemplate(note: string): boolean {
  return /\{[{%]/.test(note);
}

/** Renders status notes, compiled at first use; a failing render sends the note as written. */
export function noteRenderer(): NoteRenderer {
  const compiled = new Map<string, (values: Readonly<Record<string, string>>) => string>();
  return (template, person) => {
    if (template === undefined || !isTemplate(template)) return template ?? "";
    let render = compiled.get(template);
    try {
      if (render === undefined) {
        render = compileNote(template);
        compiled.set(template, render);
      }
      return render(verdictNoteScope(person));
    } catch {
      return template;
    }
  };
}
