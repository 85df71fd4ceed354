import type { HandlerDeps } from "./deps.js";
import type { ValidationEntry } from "./replies.js";
import type { RepoRecord } from "./store.js";

interface WorkflowFields {
  milestone?: number | null | undefined;
  type?: string | null | undefined;
}

interface ResolvedFields {
  /** undefined: not given; null: remove. */
  milestone?: number | null;
  type?: string | null;
}

/** An issue write's `milestone` and `type`, checked as GitHub does: one the repository lacks is a 422. */
export function resolveWorkflowFields(
  deps: HandlerDeps,
  r: RepoRecord,
  given: WorkflowFields,
): { ok: true; value: ResolvedFields } | { ok: false; errors: ValidationEntry[] } {
  const errors: ValidationEntry[] = [];
  const value: ResolvedFields = {};
  if (given.milestone === null) value.milestone = null;
  else if (given.milestone !== undefined) {
    if (r.milestones?.[given.milestone - 1] === undefined)
      errors.push({ resource: "Issue", code: "invalid", field: "milestone" });
    else value.milestone = given.milestone;
  }
  const types = deps.features.issueTypesOf(r.owner);
  if (given.type === null) {
    if (types !== null) value.type = null;
  } else if (given.type !== undefined && types !== null) {
    const wanted = given.type.toLowerCase();
    const found = types.find((t) => t.name.toLowerCase() === wanted);
    if (found === undefined) errors.push({ resource: "Issue", code: "invalid", field: "type" });
    else value.type = found.name;
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value };
}
