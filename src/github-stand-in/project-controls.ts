import { StandInError } from "./errors.js";
import type { NewProject, ProjectRecord, ProjectStore, ProjectValue } from "./project-store.js";

/** A project as a test sees it: field ids by name, option ids by name. */
export interface StandInProject {
  id: number;
  number: number;
  fields: Record<string, { id: number; options: Record<string, string> }>;
}

/** An item as a person sees it on the board: values by field name, an option by its name. */
export interface StandInProjectItem {
  id: number;
  issueId: number;
  values: Record<string, ProjectValue>;
}

/** What tests do to projects in-process: make one, read its items, edit a value as a person. */
export interface StandInProjects {
  create(input: NewProject): StandInProject;
  items(owner: string, number: number): StandInProjectItem[];
  /** A person's edit on the board: sets (or with null clears) a field of the issue's item. */
  boardEdit(owner: string, number: number, issueId: number, field: string, value: ProjectValue | null): void;
}

function view(p: ProjectRecord): StandInProject {
  const fields: StandInProject["fields"] = {};
  for (const f of p.fields)
    fields[f.name] = { id: f.id, options: Object.fromEntries(f.options.map((o) => [o.name, o.id])) };
  return { id: p.id, number: p.number, fields };
}

export function projectControls(projects: ProjectStore): StandInProjects {
  return {
    create: (input) => view(projects.create(input)),
    items(owner, number) {
      const p = projects.mustFind(owner, number);
      return p.items.map((item) => {
        const values: Record<string, ProjectValue> = {};
        for (const [fieldId, value] of item.values) {
          const f = p.fields.find((x) => x.id === fieldId);
          if (!f) continue;
          values[f.name] =
            f.dataType === "single_select" ? (f.options.find((o) => o.id === value)?.name ?? "") : value;
        }
        return { id: item.id, issueId: item.issueId, values };
      });
    },
    boardEdit(owner, number, issueId, fieldName, value) {
      const p = projects.mustFind(owner, number);
      const item = p.items.find((i) => i.issueId === issueId);
      const f = p.fields.find((x) => x.name.toLowerCase() === fieldName.toLowerCase());
      if (!item || !f)
        throw new StandInError("no_such_issue", `no item of issue ${issueId} or field ${fieldName}`);
      const stored =
        f.dataType === "single_select" && value !== null
          ? f.options.find((o) => o.name.toLowerCase() === String(value).toLowerCase())?.id
          : value;
      if (stored === undefined)
        throw new StandInError("no_such_issue", `no option ${String(value)} in ${f.name}`);
      projects.setValue(p, item, f.id, stored);
    },
  };
}
