import { z } from "zod";
import { parseDuration } from "../shared/duration.js";
import { checkTemplate, TemplateError } from "./templates.js";
import type { TemplateKind } from "./template-scopes.js";

/**
 * The workflow settings (contract, "Workflow"): all
 * off unless configured. Durations keep their text here and are read with `parseDuration` where they
 * are used; the schema only lets through text that parses.
 */

/** A duration with its unit (`90d`, `36h`, `10s`); a bare number is an error that says so. */
const Duration = z.preprocess(
  // A YAML number (`critical: 7`) reaches the check below as text, to be told it lacks its unit.
  (value) => (typeof value === "number" ? String(value) : value),
  z
    .string()
    .superRefine((value, ctx) => {
      if (/^\d+$/.test(value.trim())) {
        ctx.addIssue({
          code: "custom",
          message: `a duration needs a unit: s, m, h, d or w (e.g. "${value.trim()}d")`,
        });
      } else if (parseDuration(value) === null) {
        ctx.addIssue({
          code: "custom",
          message: 'not a duration: a whole number with a unit s, m, h, d or w (e.g. "90d", "36h")',
        });
      }
    })
    .meta({ pattern: "^\\d{1,9}[smhdw]$" }),
);

/** A Liquid template checked when the config is read: a bad one is exit 2 with its line. */
function template(kind: TemplateKind) {
  return z
    .string()
    .min(1)
    .superRefine((source, ctx) => {
      try {
        checkTemplate(kind, source);
      } catch (error) {
        if (!(error instanceof TemplateError)) throw error;
        // Not echoed after the message (`got "..."`): the template is on the line named, and the
        // message already quotes the variable or filter at fault.
        ctx.addIssue({ code: "custom", message: `invalid template: ${error.message}`, input: undefined });
      }
    });
}

const GROUP_KEYS = ["asset", "title", "module", "cve"] as const;
export type GroupBy = (typeof GROUP_KEYS)[number];

export const DEFAULT_GROUP_TITLE = "{{ group.key }}: {{ group.open }} open of {{ group.total }}";
export const DEFAULT_MIN_MEMBERS = 2;

export const GroupingConfig = z
  .strictObject({
    by: z
      .enum(GROUP_KEYS)
      .describe("What groups threats: asset, title, module or cve (the first CVE-YYYY-NNNN in the title)"),
    mode: z
      .enum(["parent", "single"])
      .default("parent")
      .describe(
        "parent: each threat keeps its issue, a group gets a parent with sub-issues; single: one issue per group",
      ),
    min_members: z
      .int()
      .min(1)
      .optional()
      .describe(
        `parent mode: a group gets its parent issue from this many open members (default ${DEFAULT_MIN_MEMBERS})`,
      ),
    title: template("group_title")
      .optional()
      .describe(
        `Liquid template of the group issue's title (default "${DEFAULT_GROUP_TITLE}"); group.key, group.name (an asset group's asset name), group.by, group.open, group.total`,
      ),
  })
  .refine((g) => !(g.mode === "single" && g.min_members !== undefined), {
    message: "min_members applies to parent mode only: in single mode every group is one issue",
    path: ["min_members"],
  });

export const SlaConfig = z
  .strictObject({
    critical: Duration.optional().describe("Due after first seen unsolved, e.g. 7d"),
    high: Duration.optional().describe("Due after first seen unsolved, e.g. 30d"),
    medium: Duration.optional().describe("Due after first seen unsolved, e.g. 90d"),
    low: Duration.optional().describe("Due after first seen unsolved, e.g. 180d"),
    informational: Duration.optional().describe("Due after first seen unsolved"),
    breach_label: z
      .string()
      .min(1)
      .max(50)
      .default("sla:breached")
      .describe("Added to an open issue past its due date"),
    milestones: z
      .enum(["none", "weekly"])
      .default("none")
      .describe('weekly: each issue with a due date goes into the milestone "SLA <Sunday of its due week>"'),
    restart_on_reopen: z
      .boolean()
      .default(false)
      .describe("A reopen starts a new due date (else it keeps its own)"),
  })
  .describe("Due dates by severity; a severity left out has none");

export const DEFAULT_ACCEPTANCE_NOTE =
  "Risk accepted on GitHub ({{ issue }}) by {{ login }} until {{ until }}.";

/**
 * A default longer than max is not an error: the contract caps it at max ("falls back to default,
 * capped here"), as acceptanceEnd does (features/acceptance/transitions.ts).
 */
export const AcceptanceConfig = z.strictObject({
  label: z
    .string()
    .min(1)
    .max(50)
    .default("risk-accepted")
    .describe('Closed "not planned" with this label = risk accepted'),
  default: Duration.default("90d").describe(
    'How long an acceptance lasts unless a comment says "Accepted until: YYYY-MM-DD" (capped at max)',
  ),
  max: Duration.default("365d").describe(
    "The longest acceptance; a later (or past, or unreadable) date falls back to default",
  ),
  warn_before: Duration.default("7d").describe("One comment this long before an acceptance expires"),
  status_note: template("acceptance_note")
    .default(DEFAULT_ACCEPTANCE_NOTE)
    .describe("Liquid status_note of the accepted PATCH: issue, url, login, until"),
});

export const Recurrence = z
  .enum(["reopen", "new_issue"])
  .default("reopen")
  .describe(
    "A threat unsolved again after it was solved, accepted or closed: reopen its issue, or open a new one",
  );
