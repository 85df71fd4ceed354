import { z } from "zod";
import { isoCanonicalMs } from "../../../shared/iso-time.js";
import { jsonSliceOf, withJsonSlice, type Sliced } from "../types.js";

/**
 * The threat's SLA, the "sla" slice of its record (stored in `feature_data`): `since` (ISO) is
 * when it was first seen unsolved by the connector (or `fields.threat.detected_at`), `due` (ISO) is
 * `since` plus its severity's duration. `breach` says what became of the breach label: `added` by
 * the connector (never added again for this due date, so a person who removes it is not fought),
 * or `removed` by a person (noticed once, logged once). `milestone` is the title of the weekly
 * milestone the connector put the issue in. A reopen keeps all of it unless `sla.restart_on_reopen`.
 */
export const SlaRecord = z.object({
  // ISO times; one past what toISOString writes in four digits (a due date of `999999999w`) is kept too.
  since: z.string(),
  due: z.string(),
  breach: z.enum(["added", "removed"]).optional(),
  milestone: z.string().optional(),
});
export type SlaRecord = z.infer<typeof SlaRecord>;

export const SLA = "sla";

/** Where the slice keeps its due time, and the breach that takes it off the clock (read in SQL). */
export const SLA_TIME = { due: "due", unless: "breach" } as const;

const KEYS: ReadonlySet<string> = new Set(["since", "due", "breach", "milestone"]);
const isIsoTime = (x: unknown): boolean => typeof x === "string" && isoCanonicalMs(x) !== null;

/** An SLA as the connector writes it (times from `toISOString`): checked without a schema parse. */
function isPlainSla(v: unknown): v is SlaRecord {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return (
    Object.keys(o).every((k) => KEYS.has(k)) &&
    isIsoTime(o["since"]) &&
    isIsoTime(o["due"]) &&
    (o["breach"] === undefined || o["breach"] === "added" || o["breach"] === "removed") &&
    (o["milestone"] === undefined || typeof o["milestone"] === "string")
  );
}

/** The record's SLA, or undefined: none (or a slice that does not parse, which counts as none). */
export function slaOf(record: Sliced | undefined | null): SlaRecord | undefined {
  return jsonSliceOf(record, SLA, (v) => (isPlainSla(v) ? v : SlaRecord.safeParse(v).data));
}

/** The record with its SLA set (undefined removes it). */
export function withSla<R extends Sliced>(record: R, sla: SlaRecord | undefined): R {
  return withJsonSlice(record, SLA, sla);
}
