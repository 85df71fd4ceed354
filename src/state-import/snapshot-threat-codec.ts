import { z } from "zod";
import { ParsedJson, ParsedRows } from "./journal-line.js";

/**
 * The snapshot encoding of the `threats` collection (≤ 15 MB at 100k mapped threats,
 * against 43 MB as plain JSON: BENCHMARKS.md), documented in README-store.md ("Compact encoding"): the block's
 * schema. The column table (threat-table.ts) writes codec `threat-4`, or `threat-5` when a threat
 * has an SLA or a later occurrence (`threat-4` plus those columns), or `threat-6` when a threat has
 * a plug-in feature's slice (`threat-5` plus `sliceNames` and `slices`); since store version 6 it
 * writes `threat-7` instead of those two (the SLA times small, the slices compressed:
 * threat-compact.ts), since store version 7 `threat-8` (the features' columns packed, each slice
 * column on its own: read when first used), and reads them all and
 * `threat-3`, the codec of store version 2 (asset ids in the column, extra fields in `rest`).
 */

/**
 * A column is checked as an array only: each cell is checked as the row is decoded
 * (threat-table.ts), and a zod pass over a million cells cost a sixth of the load at 100k.
 */
const Column = z.custom<unknown[]>((value) => Array.isArray(value), "expected an array");
export const ThreatColumns = z.object({
  /** threat-3: `asset` cells are the ids; threat-4: indexes into `assets` (-1: none). */
  codec: z.enum(["threat-3", "threat-4", "threat-5", "threat-6", "threat-7", "threat-8"]),
  ids: Column,
  status: Column,
  severity: Column,
  asset: Column,
  repo: Column,
  number: Column,
  closed: Column,
  hash: Column,
  url: Column,
  link: Column,
  updated: Column,
  /** GitHub's issue ids (0: not known); absent in snapshots written before it existed. */
  issueId: Column.optional(),
  /**
   * threat-5: the workflow fields (workflow-columns.ts). SLA since and due as epoch ms (null: no
   * SLA), breach 0 | 1 added | 2 removed, milestone an index into `milestones` (-1: none),
   * occurrence (0: the first).
   */
  slaSince: Column.optional(),
  slaDue: Column.optional(),
  slaBreach: Column.optional(),
  slaMilestone: Column.optional(),
  occurrence: Column.optional(),
  /**
   * threat-6: the features' slices (slice-columns.ts). `sliceNames` lists each feature name once;
   * `slices[k]` is its column: the row's string, null when the row has none. Written only when a
   * row has a slice (threat-5 and older have none).
   */
  sliceNames: z.array(z.string()).optional(),
  slices: z.array(Column).optional(),
  /**
   * threat-7 (threat-compact.ts): `slaSince` is ms after `slaBase`, `slaDue` an index into
   * `slaSpans` (due − since, ms), and the slice columns are `slicePack` (deflated JSON: threat-compact.ts `packText`).
   */
  slaBase: z.int().optional(),
  slaSpans: z.array(z.int()).optional(),
  slicePack: z.string().optional(),
  /** threat-7: the rows kept whole, packed likewise (then `raw` is empty). */
  rawPack: z.string().optional(),
  /**
   * threat-8 (threat-compact.ts): the columns only the features fill (`PACKED_COLUMNS`: issueId and
   * the workflow columns, each as threat-7 writes it) as one packText of an object by name, and
   * each feature's slice column packed on its own (slice-pack.ts), in the order of `sliceNames`.
   */
  colPack: z.string().optional(),
  slicePacks: z.array(z.string()).optional(),
  /**
   * threat-8, optional (slice-tags.ts): for `sliceNames[k]`, `[tagger id, packed digits]` (a digit
   * a row: its feature's summary of the row's slice, `-`: none), or null: none kept. Derived from
   * the slices: a reader that does not know it loses nothing by leaving it out.
   */
  sliceTags: z.array(z.tuple([z.string(), z.string()]).nullable()).optional(),
  rest: z.array(z.tuple([z.int().nonnegative(), z.record(z.string(), ParsedJson)])),
  raw: ParsedRows,
  repos: z.array(z.string()),
  statuses: z.array(z.string()),
  bases: z.array(z.string()),
  assets: z.array(z.string()).optional(),
  milestones: z.array(z.string()).optional(),
});
export type ThreatColumns = z.infer<typeof ThreatColumns>;

/**
 * The columns threat-7 may write as a string of digits, one a row (threat-compact.ts), and the
 * offset added to each value first (-1, no repository or no milestone, is "0").
 */
export const DIGIT_COLUMNS = {
  status: 0,
  severity: 0,
  repo: 1,
  closed: 0,
  url: 0,
  link: 0,
  slaBreach: 0,
  slaMilestone: 1,
  occurrence: 0,
} as const satisfies Partial<Record<keyof ThreatColumns, number>>;
const Digits = z.custom<unknown[] | string>(
  (value) => Array.isArray(value) || typeof value === "string",
  "expected an array or a string of digits",
);
/** A threats block as the snapshot holds it: threat-7's digit columns are turned into arrays as it loads. */
export const ThreatColumnsDoc = ThreatColumns.extend({
  status: Digits,
  severity: Digits,
  repo: Digits,
  closed: Digits,
  url: Digits,
  link: Digits,
  slaBreach: Digits.optional(),
  slaMilestone: Digits.optional(),
  occurrence: Digits.optional(),
});
export type ThreatColumnsDoc = z.infer<typeof ThreatColumnsDoc>;

/** Why a threat could not be decoded (the caller names the file). */
export class RowError extends Error {}
