import { z } from "zod";
import { checkTemplate, checkTemplateWith, TemplateError } from "./templates.js";

/** What a parent or group issue's field templates see of its group (values escaped by the caller). */
interface GroupFieldFacts {
  key: string;
  name: string;
  by: string;
}

/**
 * A group issue's field scope (grouping's parents and single-mode issues): its group's key, name
 * (an asset group's asset name; the key where there is none) and what it groups by. Its members'
 * counts are left out: a field written per membership change would cost a PATCH each time.
 */
export function groupFieldScope(group: GroupFieldFacts): { group: GroupFieldFacts } {
  const { key, name, by } = group;
  return { group: { key, name, by } };
}

/** A group issue's sample scope: the config checks a field against it as `check` renders it. */
export const GROUP_FIELD_SAMPLE = groupFieldScope({ key: "CVE-2026-0001", name: "www", by: "cve" });

/**
 * Whether a field's template reads only what a group issue's scope offers (a fixed text reads
 * nothing, so it is set on both kinds of issue). Not so: the field is left unset on group issues.
 */
export function fitsGroupIssue(source: string): boolean {
  try {
    checkTemplateWith(GROUP_FIELD_SAMPLE, source);
    return true;
  } catch (error) {
    if (error instanceof TemplateError) return false;
    throw error;
  }
}

/** Whether a field's template reads only what a threat's issue offers (its templates' scope). */
export function fitsThreatIssue(source: string): boolean {
  try {
    checkTemplate("issue_title", source);
    return true;
  } catch (error) {
    if (error instanceof TemplateError) return false;
    throw error;
  }
}

/**
 * `github.project` (contract, "The conversation back": projects): the GitHub project (the current
 * kind) every issue the connector creates joins, and what each of its fields shows. Each field's
 * value is a Liquid template with the issue template's scope (threat, asset, sla, …), checked here
 * like the issue's templates, so a bad one is a config error, not a failed sync. A parent or group
 * issue's fields see its group instead (`group.key`, `group.name`, `group.by`): a field reads one
 * kind's scope, and is left unset on the other kind's issues.
 */
export const ProjectConfig = z
  .strictObject({
    owner: z
      .string()
      .regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/, "must be a GitHub organization or user login, e.g. acme")
      .describe("The organization (or user) that owns the project, e.g. acme"),
    number: z.int().positive().describe("The project's number: github.com/orgs/acme/projects/7 is 7"),
    fields: z
      .record(z.string().min(1).max(100), z.string())
      .default({})
      .describe(
        "Project field name: Liquid value, e.g. Severity: \"{{ threat.severity }}\". Text and number fields get the text, date fields YYYY-MM-DD (empty leaves it unset), single-select fields the option of that name (case-insensitive). A value reading the group ({{ group.key }}, group.name, group.by) is set on grouping's parent and group issues only; one reading a threat on threats' issues only",
      ),
  })
  .superRefine((project, ctx) => {
    for (const [name, source] of Object.entries(project.fields)) {
      try {
        // The issue title's scope: plain text, as a board's cell shows text literally. A field may
        // read a group issue's scope instead (`group.key`): it is then set on group issues only.
        if (!fitsGroupIssue(source)) checkTemplate("issue_title", source);
      } catch (error) {
        if (!(error instanceof TemplateError)) throw error;
        ctx.addIssue({
          code: "custom",
          path: ["fields", name],
          message: `invalid template: ${error.message}`,
        });
      }
    }
  });
export type ProjectConfig = z.infer<typeof ProjectConfig>;
