import { z } from "zod";
import { isRecord } from "../shared/json.js";
import type { ValidationEntry } from "./replies.js";

/** GitHub's published limits on issue and comment text. */
const MAX_BODY_CHARS = 65_536;
const MAX_TITLE_CHARS = 256;

/** GitHub takes a milestone number as a number or a numeric string. */
const MilestoneNumber = z.union([z.number().int().positive(), z.string().regex(/^\d+$/).transform(Number)]);

const LabelName = z.union([z.string(), z.object({ name: z.string() }).transform((l) => l.name)]);

export const CreateIssueBody = z.object({
  title: z.union([z.string().min(1), z.number().transform(String)]),
  body: z.string().nullable().optional(),
  labels: z.array(LabelName).optional(),
  assignees: z.array(z.string()).optional(),
  assignee: z.string().nullable().optional(),
  milestone: MilestoneNumber.nullable().optional(),
  /** An issue type's name (GitHub's `type` on create). */
  type: z.string().nullable().optional(),
});

const StateReason = z.enum(["completed", "not_planned", "reopened"]);

export const UpdateIssueBody = z.object({
  title: z.union([z.string().min(1), z.number().transform(String)]).optional(),
  body: z.string().nullable().optional(),
  state: z.enum(["open", "closed"]).optional(),
  state_reason: StateReason.nullable().optional(),
  labels: z.array(LabelName).optional(),
  assignees: z.array(z.string()).optional(),
  milestone: MilestoneNumber.nullable().optional(),
  type: z.string().nullable().optional(),
});

export const CreateCommentBody = z.object({ body: z.string().min(1) });

/** `POST …/labels` takes `{"labels": [...]}` or a bare array of names, like GitHub. */
export const AddLabelsBody = z.union([
  z.object({ labels: z.array(LabelName) }).transform((b) => b.labels),
  z.array(LabelName),
]);

export const CreateLabelBody = z.object({
  name: z.string().min(1),
  color: z
    .string()
    .regex(/^#?[0-9a-fA-F]{6}$/)
    .transform((c) => c.replace(/^#/, "").toLowerCase())
    .optional(),
  description: z.string().max(100).nullable().optional(),
});

export const CreateMilestoneBody = z.object({
  title: z.string().min(1),
  state: z.enum(["open", "closed"]).optional(),
  description: z.string().nullable().optional(),
  due_on: z.iso.datetime({ offset: true }).nullable().optional(),
});

export const UpdateMilestoneBody = CreateMilestoneBody.partial();

export const AddSubIssueBody = z.object({
  sub_issue_id: z.number().int().positive(),
  replace_parent: z.boolean().optional(),
});

export const RemoveSubIssueBody = z.object({ sub_issue_id: z.number().int().positive() });

type ParseOutcome<T> = { ok: true; value: T } | { ok: false; errors: ValidationEntry[] };

/** Parses a request body, turning zod's issues into GitHub's 422 `errors` entries. */
export function parseBody<S extends z.ZodType>(
  schema: S,
  raw: unknown,
  resource: string,
): ParseOutcome<z.output<S>> {
  const parsed = schema.safeParse(raw ?? {});
  if (parsed.success) return { ok: true, value: parsed.data };
  const rawObject: Record<string, unknown> = isRecord(raw) ? raw : {};
  const errors = parsed.error.issues.map((issue): ValidationEntry => {
    const field = String(issue.path[0] ?? "");
    const missing = field !== "" && (rawObject[field] === undefined || rawObject[field] === "");
    return { resource, code: missing ? "missing_field" : "invalid", field };
  });
  return { ok: false, errors };
}

/** The length rules GitHub applies on top of the types (counted in characters). */
export function lengthErrors(
  resource: string,
  fields: { title?: string; body?: string | null },
): ValidationEntry[] {
  const errors: ValidationEntry[] = [];
  if (fields.title !== undefined && [...fields.title].length > MAX_TITLE_CHARS) {
    errors.push({
      resource,
      code: "custom",
      field: "title",
      message: `title is too long (maximum is ${MAX_TITLE_CHARS} characters)`,
    });
  }
  if (typeof fields.body === "string" && [...fields.body].length > MAX_BODY_CHARS) {
    errors.push({
      resource,
      code: "custom",
      field: "body",
      message: `body is too long (maximum is ${MAX_BODY_CHARS} characters)`,
    });
  }
  return errors;
}
