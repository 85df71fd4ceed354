import type { Feature } from "../types.js";
import { recurrenceDecider } from "./plan.js";
import { forOccurrence } from "./occurrence.js";
import { recurAction, recurNoteAction } from "./recur-action.js";
import { recoverOccurrence } from "./recover.js";
import { recurrenceNoted } from "./transitions.js";
import { occurrenceOf, recurrenceOf, withRecurrence } from "./slice.js";

/**
 * `recurrence: new_issue` (contract, "Recurrence") as a plug-in: a threat `unsolved` again whose
 * issue is closed gets a new issue, then the old one a comment naming it. A later occurrence's issue
 * keeps its own marker whatever the setting is now (`render`).
 */
export const recurrence: Feature = {
  name: "recurrence",
  configKey: "recurrence",
  // The setting has a default (`reopen`): only `new_issue` switches the plug-in on.
  configured: (config) => config.recurrence === "new_issue",
  record: {
    marker: {
      numberOf: occurrenceOf,
      adopted: (record, number) => withRecurrence(record, { occurrence: number }),
    },
    stepCommented: recurrenceNoted,
  },
  plan: {
    decide: (_config, at) => recurrenceDecider(at.base),
    render: (record, threatId, rendered) => {
      const { occurrence, from } = recurrenceOf(record);
      return occurrence !== undefined && occurrence > 1 && from
        ? forOccurrence(rendered, threatId, occurrence, from)
        : rendered;
    },
  },
  actions: {
    modules: { recur: recurAction, step_comment: recurNoteAction },
    claimsIntent: (intent) => intent.kind === "create" && (intent.markerNumber ?? 1) > 1,
    recover: recoverOccurrence,
  },
};
