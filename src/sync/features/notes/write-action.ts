import type { Threat } from "../../../platform/index.js";
import { isRecord } from "../../../shared/json.js";
import { QueueClass, type ActionModule, type Settlement } from "../../actions/types.js";
import type { FeatureAction } from "../../plan/plan.js";
import { threatGone } from "../../transitions/outcome.js";
import { noteOf } from "./intake.js";
import type { NoteAction } from "./plan.js";
import { findSection, spliceNote } from "./section.js";
import { changeSlice, NOTES } from "./slice.js";

/**
 * The note write (contract, "The conversation back": notes; spec, `POST /v1/threats/{id}/update-note`):
 * the threat is read fresh right before (`GET /v1/threats/{id}`), everything outside the section is
 * kept and only the section is replaced; nothing is sent when the note already holds it (after a
 * lost state, or a write that landed while its answer was lost). A platform write like a verdict:
 * queued, under an intent (`feature`, its data the section's hash), paced by the platform's 429s
 * (the client's), and safe to send twice (update-note rule 6: same text, same note).
 *
 * The window that remains: an analyst's edit that reaches the platform between that read and the
 * write (one request long) is replaced by the note as read, since update-note replaces the whole
 * note and the spec offers no compare-and-set; and the platform applies notes asynchronously (rule
 * 2), so an edit the platform accepted but not yet applied is not in the read either.
 */

type Answer =
  /** Sent: the note as written. */
  | { kind: "written" }
  /** The note holds the section already: nothing sent. */
  | { kind: "unchanged" }
  /** Reads carry no note at `fields.threat.note`: nothing sent. */
  | { kind: "absent"; path: string }
  /** 404: the threat left the API (its asset was removed). */
  | { kind: "gone" };

function isNotFound(error: unknown): boolean {
  return isRecord(error) && error["status"] === 404;
}

const asNote = (action: FeatureAction): NoteAction => action as NoteAction;

export const noteWriteAction: ActionModule<FeatureAction, Answer> = {
  kind: "feature",
  // A platform write, like a verdict's: after the GitHub side's own work of the threat.
  priority: () => QueueClass.other,
  spendsGitHubBudget: () => false,
  mappingRepair: false,
  describe: (action) => ({
    action: "note",
    detail: `note section (${asNote(action).section.length} characters)`,
  }),
  intent: (action) => {
    const note = asNote(action);
    return {
      fields: {
        kind: "feature",
        feature: NOTES,
        threatId: note.threatId,
        repo: note.repo,
        number: note.number,
        data: note.hash,
      },
      onFailure: "feature-recover",
      settleLazily: false,
    };
  },
  async send(action, io) {
    const note = asNote(action);
    let threat: Threat | null;
    try {
      threat = await io.platform.getThreat(note.threatId);
    } catch (error) {
      if (isNotFound(error)) return { kind: "gone" };
      throw error;
    }
    if (threat === null) return { kind: "gone" };
    const current = noteOf(threat, note.path);
    if (current === undefined) return { kind: "absent", path: note.path };
    const section = findSection(current, note.hash);
    if (section?.text === note.section) return { kind: "unchanged" };
    try {
      await io.platform.updateNote(note.threatId, spliceNote(current, note.section));
    } catch (error) {
      if (isNotFound(error)) return { kind: "gone" };
      throw error;
    }
    return { kind: "written" };
  },
  asAsked: () => Promise.resolve({ kind: "written" }),
  settle(action, answer): Settlement {
    const note = asNote(action);
    const issue = { repo: note.repo, number: note.number };
    if (answer.kind === "gone")
      return { record: threatGone, events: [], cache: "forget", commit: "checkpoint" };
    if (answer.kind === "absent") {
      return {
        record: (r) => changeSlice(r, (s) => ({ ...s, n: 1 })),
        events: [],
        notice: {
          level: "warn",
          once: "notes:absent",
          fields: { threat_id: note.threatId, issue: `${note.repo}#${note.number}`, path: answer.path },
          message: "threat reads carry no note at fields.threat.note; no note is written (said once)",
        },
        commit: "checkpoint",
      };
    }
    return {
      record: (r) => changeSlice(r, (s) => ({ ...s, w: note.hash })),
      events:
        answer.kind === "written"
          ? [{ type: "feature_written", threatId: note.threatId, issue, action: "note", detail: note.hash }]
          : [],
      commit: "checkpoint",
    };
  },
};
