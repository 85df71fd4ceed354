import { z } from "zod";
import { checkTemplateWith, TemplateError } from "./templates.js";

/**
 * `notes` (contract, "The conversation back"): the threat's note on the platform tells its issue's
 * story in a section the connector owns. Off unless configured. The template's scope is defined
 * here (`NoteSectionScope`), beside the sample the config checks a template against, so that the
 * renderer (src/sync/features/notes/section.ts) and the check cannot drift apart.
 */

/** What the section's template sees. Every text is plain (GitHub's words, not escaped). */
export interface NoteSectionScope {
  issue: {
    /** `owner/name#N` */
    ref: string;
    url: string;
    state: string;
    /** GitHub's close reason (`completed`, `not_planned`, `duplicate`), empty when open or unknown. */
    reason: string;
    assignees: string[];
    /** The milestone's title, empty when none. */
    milestone: string;
    /** The SLA's due day (YYYY-MM-DD), empty when the threat has none. */
    due: string;
  };
  /** The last `notes.comments` comments by people, oldest first. */
  comments: { author: string; at: string; text: string }[];
}

export const NOTE_SECTION_SAMPLE: NoteSectionScope = {
  issue: {
    ref: "acme/security-threats#12",
    url: "https://github.com/acme/security-threats/issues/12",
    state: "closed",
    reason: "completed",
    assignees: ["alice"],
    milestone: "SLA 2026-02-01",
    due: "2026-02-01",
  },
  comments: [{ author: "alice", at: "2026-01-02 10:00 UTC", text: "Patched on all hosts." }],
};

/** The lines around the connector's section of a note (contract, "The conversation back"). */
export const NOTE_BEGIN = "--- threatbridge: GitHub ---";
export const NOTE_END = "--- threatbridge: end ---";

/** The longest section the connector writes into a note (a sane bound: the platform has none). */
export const MAX_NOTE_SECTION = 1_000_000;

/**
 * The shortest: the two marker lines and the "…" of a cut (the contract fixes no bound; a shorter
 * one could not hold the section at all).
 */
export const MIN_NOTE_SECTION = NOTE_BEGIN.length + NOTE_END.length + 3;

export const NotesConfig = z.strictObject({
  comments: z
    .int()
    .min(0)
    .max(100)
    .default(3)
    .describe("The last N comments written by people shown in the note (0: none)"),
  max_length: z
    .int()
    .min(MIN_NOTE_SECTION)
    .max(MAX_NOTE_SECTION)
    .default(8000)
    .describe("The connector's section of the note is cut here, with …"),
  template: z
    .string()
    .default("")
    .superRefine((source, ctx) => {
      if (source === "") return;
      try {
        checkTemplateWith(NOTE_SECTION_SAMPLE, source);
      } catch (error) {
        if (!(error instanceof TemplateError)) throw error;
        ctx.addIssue({ code: "custom", message: `invalid template: ${error.message}`, input: undefined });
      }
    })
    .describe(
      "Liquid, optional: replaces the section's default body; {{ issue.ref }}, issue.url, issue.state, issue.reason, issue.assignees, issue.milestone, issue.due, comments (author, at, text)",
    ),
  to_github: z
    .boolean()
    .default(false)
    .describe(
      "true: the analyst's own text of the note (outside the connector's section) comes to the issue: in its body when it is created, then one comment per change (cut at max_length)",
    ),
});
export type NotesConfig = z.infer<typeof NotesConfig>;
