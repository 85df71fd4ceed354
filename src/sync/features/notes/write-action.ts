import type { Threat } from "../../../platform/index.js";
import { isRecord } from "../../../shared/json.js";
import { QueueClass, type ActionModule, type IntentSpec, type Settlement } from "../../actions/types.js";
import type { FeatureAction } from "../../plan/plan.js";
import { threatGone } from "../../transitions/outcome.js";
import { noteOf } from "./section.js";
import type { NoteAction } from "./plan.js";
import { findSection, spliceNote } from "./section.js";
import { changeSlice, NOTES } from "./slice.js";

/**
 * The note write (contract, "The conversation back": notes; update-note): the threat is read fresh
 * right before, only the section is replaced, and nothing is sent when the note holds it already.
 * Under an intent, safe to send twice (update-note rule 6).
 *
 * The window that remains: an analyst's edit landing between that read and the write is lost, since
 * update-note replaces the whole note with no compare-and-set, and notes apply asynchronously (rule 2).
 */

type Answer =
  | { kind: "written" }
  | { kind: "unchanged" }
  | { kind: "absent"; path: string }
  /** 404: the threat left the API (its asset was removed). */
  | { kind: "gone" };

function isNotFound(error: unknown): boolean {
  return isRecord(error) && error["status"] === 404;
}

const asNote = (action: FeatureAction): NoteAction => action as NoteAction;

/** The intent of a notes write on an issue (`data` tells the kinds apart; the feature's `recover` resolves it). */
export function noteIntent(
  write: { threatId: string; repo: string; number: number },
  data: string,
): IntentSpec {
  const { threatId, repo, number } = write;
  return {
    fields: { kind: "feature", feature: NOTES, threatId, repo, number, data },
    onFailure: "feature-recover",
    settleLazily: false,
  };
}

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
  intent: (action) => noteIntent(asNote(action), asNote(action).hash),
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
