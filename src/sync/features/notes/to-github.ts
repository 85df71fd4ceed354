import type { NotesConfig } from "../../../config/notes.js";
import type { IssueSnapshot } from "../../../github/index.js";
import { markerFor } from "../../../shared/index.js";
import type { ThreatRecord } from "../../../state/index.js";
import type { SyncContext } from "../../context.js";
import type { FeatureAction } from "../../plan/plan.js";
import type { Rendering } from "../types.js";
import { analystText, cutText, shownHash, textHash, withBodyNote } from "./analyst.js";
import { addPendingFlagged, notesRun } from "./runtime.js";
import { changeSlice, NOTES, readSlice, type NotesSlice } from "./slice.js";

/**
 * `notes.to_github` (contract, "The analyst's words on GitHub") in the notes feature: what the
 * intake notes of each threat version, what the issue is created with, and the comment due.
 *
 * The slice keeps the hash of the text the issue last showed (`g`) and, while one is due, the
 * text to show (`d` its hash, `t` the text cut at `notes.max_length`, `k` when it changed). The
 * comment is planned from the record (no read of the threat), once this cycle's intake is done,
 * at most once per threat per cycle: the newest text of the cycle. Only a change of the analyst's
 * text counts: the connector's own section, its echo and a re-delivery hash the same.
 */

export interface NoteCommentAction extends FeatureAction {
  feature: typeof NOTES;
  step: "comment";
  repo: string;
  number: number;
  /** The text to show (cut at `notes.max_length`; "" when the analyst cleared it) and its hash. */
  text: string;
  hash: string;
  /** When the text changed (the threat version's `updated_at`): the comment's first line says so. */
  changedAt: string;
  /**
   * What the issue last showed is not known (a lost state, an issue made before the setting): the
   * issue's comments are read first (one listing), and nothing is posted when they show this text.
   */
  check: boolean;
  /** When `check` finds no comment of the connector's: what the issue's body showed, if known. */
  body?: string;
}

function withoutDue(slice: NotesSlice): NotesSlice {
  const { d: _d, t: _t, k: _k, ...rest } = slice;
  return rest;
}

/**
 * A new version of a threat (its note at `fields.threat.note`, as read): the record with what the
 * analyst's text means for the issue. Before the issue is made (and with no platform link, which
 * would name an issue made before: a lost state), the text is kept for the body the issue is made
 * with; after, a text that differs from what the issue last showed is due, and the threat waits
 * for this cycle's intake to end (`addPending`).
 */
export function analystOnVersion(
  ctx: SyncContext,
  config: NotesConfig,
  threatId: string,
  after: ThreatRecord,
  note: string,
  updatedAt: string,
): ThreatRecord {
  notesRun(ctx);
  const slice = readSlice(after);
  // The text as the issue would show it: a change past `max_length` shows nothing new.
  const text = cutText(analystText(note, slice.w), config.max_length);
  const hash = textHash(text);
  if (!after.issue && after.link === undefined) {
    const body = text === "" ? undefined : text;
    return body === slice.b ? after : changeSlice(after, (s) => ({ ...s, b: body }));
  }
  // A platform link but no issue known: a lost state, whose issue is adopted later in the cycle.
  // Only a text kept for it is due (what the issue showed is read then, from its comments): an
  // empty one is not, so that threats without analyst text cost no read.
  if (!after.issue && text === "") return after;
  const unknown = slice.g === undefined;
  // Nothing to show: what the issue shows already, or an empty text on an issue known to show none.
  const shown = unknown ? hash === "" && (slice.s ?? "") === "" : slice.g === hash;
  if (shown) return slice.d === undefined ? after : changeSlice(after, withoutDue);
  if (slice.d === hash) return after;
  addPendingFlagged(ctx, threatId);
  return changeSlice(after, (s) => ({
    ...s,
    p: 1,
    d: hash,
    t: text === "" ? undefined : text,
    k: updatedAt,
  }));
}

/** The comment due for a threat, if any (pure: what the plan and its tests share). */
export function commentDue(threatId: string, record: ThreatRecord): NoteCommentAction | null {
  const issue = record.issue;
  if (!issue || record.gone) return null;
  const slice = readSlice(record);
  if (slice.d === undefined || slice.d === slice.g) return null;
  return {
    kind: "feature",
    feature: NOTES,
    step: "comment",
    threatId,
    repo: issue.repo,
    number: issue.number,
    text: slice.t ?? "",
    hash: slice.d,
    changedAt: slice.k ?? "",
    check: slice.g === undefined,
    ...(slice.s !== undefined ? { body: slice.s } : {}),
  };
}

/** The record once the issue shows the text of `hash` (a comment posted, or found on the issue). */
export function noteShown(record: ThreatRecord, hash: string): ThreatRecord {
  return changeSlice(record, (s) => {
    const out = { ...s, g: hash };
    return s.d === hash ? withoutDue(out) : out;
  });
}

/** An issue made or adopted: the hash of the text its body shows (its hidden note line), if any. */
export function noteIssueFound(record: ThreatRecord, issue: IssueSnapshot): ThreatRecord {
  const hash = shownHash(issue.body);
  const slice = readSlice(record);
  return hash === slice.s ? record : changeSlice(record, (s) => ({ ...s, s: hash }));
}

/** The issue as the record asks it shown: the analyst's text it is made with in its body (hash unchanged). */
export function renderBodyNote(record: ThreatRecord, threatId: string, rendered: Rendering): Rendering {
  const text = readSlice(record).b;
  if (text === undefined) return rendered;
  const issue = rendered.issue;
  // The core's hash is kept, so that the text alone never makes an update: the body shows the text
  // it was made with.
  const body = withBodyNote(issue.body, text, textHash(text), markerFor(threatId));
  return { issue: { ...issue, body }, hash: rendered.hash };
}
