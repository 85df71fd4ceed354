import { z } from "zod";
import { checkTemplate, TemplateError } from "./templates.js";

/**
 * `github.project` (contract, "The conversation back": projects): the GitHub project (the current
 * kind) every issue the connector creates joins, and what each of its fields shows. Each field's
 * value is a Liquid template with the issue template's scope (threat, asset, sla, …), checked here
 * like the issue's templates, so a bad one is a config error, not a failed sync.
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
        'Project field name: Liquid value, e.g. Severity: "{{ threat.severity }}". Text and number fields get the text, date fields YYYY-MM-DD (empty leaves it unset), single-select fields the option of that name (case-insensitive)',
      ),
  })
  .superRefine((project, ctx) => {
    for (const [name, source] of Object.entries(project.fields)) {
      try {
        // The issue title's scope: plain text, as a board's cell shows text literally.
        checkTemplate("issue_title", source);
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
