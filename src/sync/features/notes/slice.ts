import { z } from "zod";
import type { ThreatRecord } from "../../schema.js";
import { sliceOf, withSlice } from "../types.js";
import { compareIso } from "../../../shared/iso-time.js";

/** What a threat's record keeps for its note (its slice, a short JSON string); absent when empty. */

export const NOTES = "notes";

/** One person's comment as the section shows it: GitHub's id, author, creation time, plain text. */
export type NoteComment = [id: number, author: string, at: string, text: string];

const Slice = z.object({
  /** Hash of the section last written (or found in the note): the plan compares against it. */
  w: z.string().optional(),
  /** 1: its section differs and waits for the next comment listing, which queues it. */
  p: z.literal(1).optional(),
  /** 1: reads of this threat carry no note at `fields.threat.note` (nothing is written). */
  n: z.literal(1).optional(),
  /** GitHub's close reason, assignees and milestone of the issue, where set. */
  r: z.string().optional(),
  a: z.array(z.string()).optional(),
  m: z.string().optional(),
  c: z.array(z.tuple([z.number(), z.string(), z.string(), z.string()])).optional(),
  /** `notes.to_github`: hash of the analyst's text the issue last showed ("" for none); absent when unknown. */
  g: z.string().optional(),
  /** The hash of the analyst's text due on the issue, that text (cut at max_length) and when it changed. */
  d: z.string().optional(),
  t: z.string().optional(),
  k: z.string().optional(),
  /** The analyst's text (cut) the body shows, from before the issue was made. */
  b: z.string().optional(),
  /** The hash of the text the body showed when it was found (made or adopted). */
  s: z.string().optional(),
});
export type NotesSlice = z.infer<typeof Slice>;

/** The record's slice; a slice that does not parse (an older shape) counts as none. */
export function readSlice(record: ThreatRecord | undefined): NotesSlice {
  return parseSlice(sliceOf(record, NOTES));
}

/** A slice's text as stored (ThreatRecords.scanSlices gives it); one that does not parse counts as none. */
export function parseSlice(text: string | undefined): NotesSlice {
  if (text === undefined) return {};
  // The common slice (only the hash of the section written) is stored as that hash alone.
  if (!text.startsWith("{")) return { w: text };
  try {
    const parsed = Slice.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

/** The record with this slice (keys left undefined or empty are not stored). */
export function writeSlice(record: ThreatRecord, slice: NotesSlice): ThreatRecord {
  const kept = Object.fromEntries(
    Object.entries(slice).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0)),
  );
  const keys = Object.keys(kept);
  // The common slice is stored as the hash alone (a base64url hash never starts with "{").
  const text =
    keys.length === 0
      ? undefined
      : keys.length === 1 && typeof kept["w"] === "string" && !kept["w"].startsWith("{")
        ? kept["w"]
        : JSON.stringify(kept);
  return withSlice(record, NOTES, text);
}

export function changeSlice(record: ThreatRecord, change: (slice: NotesSlice) => NotesSlice): ThreatRecord {
  return writeSlice(record, change(readSlice(record)));
}

/**
 * The comments kept after new ones: the same id replaced (an edit), oldest first by creation time
 * (then id), the last `keep`.
 */
export function mergeComments(
  known: readonly NoteComment[],
  fresh: readonly NoteComment[],
  keep: number,
): NoteComment[] {
  const byId = new Map<number, NoteComment>();
  for (const c of [...known, ...fresh]) byId.set(c[0], c);
  // By the instant each names (GitHub writes whole seconds, other servers milliseconds or offsets).
  const all = [...byId.values()].sort((x, y) => compareIso(x[2], y[2]) || x[0] - y[0]);
  return keep <= 0 ? [] : all.slice(-keep);
}
