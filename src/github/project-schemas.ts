import { z } from "zod";

/** GitHub's answers about projects ("projectsV2"), loose: only the fields the connector reads are named. */
export const GitHubProject = z.looseObject({
  id: z.number(),
  node_id: z.string(),
  number: z.number().int(),
  title: z.string(),
});

const Option = z.looseObject({
  id: z.string(),
  // GitHub sends `{raw, html}`; a plain string is read alike.
  name: z.union([z.string(), z.looseObject({ raw: z.string() }).transform((n) => n.raw)]),
});

export const GitHubProjectField = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  data_type: z.string(),
  options: z.array(Option).optional(),
});
export const GitHubProjectFieldList = z.array(GitHubProjectField);

const FieldValue = z.looseObject({
  id: z.number().int(),
  data_type: z.string().optional(),
  value: z.unknown().optional(),
});

export const GitHubProjectItem = z.looseObject({
  id: z.number(),
  content_type: z.string(),
  content: z.looseObject({ id: z.number().int().optional() }).nullable().optional(),
  fields: z.array(FieldValue).optional(),
});
export const GitHubProjectItemList = z.array(GitHubProjectItem);

/** A field as the connector uses it: `type` is GitHub's `data_type` (text, number, date, single_select, …). */
export interface ProjectField {
  id: number;
  name: string;
  type: string;
  /** A single-select field's options; empty for other types. */
  options: Array<{ id: string; name: string }>;
}

/** A field's value on an item: text, number, YYYY-MM-DD date, or a single-select option's id. */
export type ProjectFieldValue = string | number | null;

export interface ProjectItem {
  id: number;
  /** The issue's `id` (not its number); null for a draft or an item whose content is hidden. */
  issueId: number | null;
  /** The values of the fields asked for, by field id (an unset field is null). */
  values: Record<number, ProjectFieldValue>;
}

export function toProjectField(f: z.infer<typeof GitHubProjectField>): ProjectField {
  const options = (f.options ?? []).map((o) => ({ id: o.id, name: o.name }));
  return { id: f.id, name: f.name, type: f.data_type, options };
}

const OptionValue = z.looseObject({ id: z.string() });

/** GitHub renders a single-select value as the option's record; the connector keeps its id. */
function valueOf(v: z.infer<typeof FieldValue>): ProjectFieldValue {
  const raw = v.value;
  if (typeof raw === "string" || typeof raw === "number") return raw;
  const option = OptionValue.safeParse(raw);
  return option.success ? option.data.id : null;
}

export function toProjectItem(item: z.infer<typeof GitHubProjectItem>): ProjectItem {
  const values: Record<number, ProjectFieldValue> = {};
  for (const f of item.fields ?? []) if (f.data_type !== "title") values[f.id] = valueOf(f);
  return {
    id: item.id,
    issueId: item.content_type === "Issue" ? (item.content?.id ?? null) : null,
    values,
  };
}
