import type { NotesConfig } from "../../../config/notes.js";
import type { IssueSnapshot } from "../../../github/index.js";
import { markerFor } from "../../../shared/index.js";
import type { ThreatRecord } from "../../schema.js";
import type { FeatureAction } from "../../plan/plan.js";
import type { Rendering, FeatureContext } from "../types.js";
import { analystText, cutText, shownHash, textHash, withBodyNote } from "./analyst.js";
import { addPendingFlagged, notesRun } from "./runtime.js";
import { changeSlice, NOTES, readSlice, type NotesSlice } from "./slice.js";

/**
 * `notes.to_github` (contract, "The analyst's words on GitHub"). Only a change of the analyst's text
 * counts: the connector's own section, its echo and a re-delivery hash the same.
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
  /** What the issue last showed is unknown: its comments are read first, and nothing is posted if they show it. */
  check: boolean;
  /** When `check` finds no comment of the connector's: what the issue's body showed, if known. */
  body?: string;
}

function withoutDue(slice: NotesSlice): NotesSlice {
  const { d: _d, t: _t, k: _k, ...rest } = slice;
  return rest;
}

/**
 * A new threat version: before the issue is made, the text is kept for its body; after, a text that
 * differs from what the issue last showed is due once this cycle's intake ends.
 */
export function analystOnVersion(
  ctx: FeatureContext,
  config: NotesConfig,
  threatId: string,
  after: ThreatRecord,
  note: string,
  updatedAt: string,
): ThreatRecord {
  const run = notesRun(ctx);
  run.seen?.add(threatId);
  const seen = analystSeen(config, after, note, updatedAt, true);
  if (seen.due) addPendingFlagged(ctx, threatId);
  return seen.record;
}

/**
 * What the analyst's text of a note makes of the record (pure): the text kept for a body not made
 * yet, or a comment due (`due`, its hash, text and time in the slice) when it differs from what the
 * issue last showed. `flag`: the slice says the threat waits for this cycle's queueing (`p`).
 */
export function analystSeen(
  config: NotesConfig,
  after: ThreatRecord,
  note: string,
  updatedAt: string,
  flag: boolean,
): { record: ThreatRecord; due: boolean } {
  const slice = readSlice(after);
  // The text as the issue would show it: a change past `max_length` shows nothing new.
  const text = cutText(analystText(note, slice.w), config.max_length);
  const hash = textHash(text);
  if (!after.issue && after.link === undefined) {
    const body = text === "" ? undefined : text;
    return { record: body === slice.b ? after : changeSlice(after, (s) => ({ ...s, b: body })), due: false };
  }
  // A lost state (link, no issue): an empty text is not due, so threats without one cost no read.
  if (!after.issue && text === "") return { record: after, due: false };
  const unknown = slice.g === undefined;
  // Nothing to show: what the issue shows already, or an empty text on an issue known to show none.
  const shown = unknown ? hash === "" && (slice.s ?? "") === "" : slice.g === hash;
  if (shown) return { record: slice.d === undefined ? after : changeSlice(after, withoutDue), due: false };
  if (slice.d === hash) return { record: after, due: false };
  const record = changeSlice(after, (s) => ({
    ...s,
    ...(flag ? { p: 1 as const } : {}),
    d: hash,
    t: text === "" ? undefined : text,
    k: updatedAt,
  }));
  return { record, due: true };
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

export function noteShown(record: ThreatRecord, hash: string): ThreatRecord {
  return changeSlice(record, (s) => {
    // Known from now on: what the body showed when found (`s`) no longer counts.
    const out = { ...s, g: hash, s: undefined };
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
