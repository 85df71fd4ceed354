import { everyKeyOf } from "../shared/every-key.js";
import { isoCanonicalMs } from "../state/iso-ms.js";
import type { Interner } from "./interner.js";
import type { Json } from "./journal-line.js";
import type { SlaRecord, ThreatRecord } from "../state/schema.js";

/**
 * The workflow fields most records hold when the workflow features are on, as columns of the
 * threat table (threat-table.ts): the SLA slice (every unsolved threat has one when `sla` is
 * configured) and the occurrence (`recurrence: new_issue`). Kept whole as objects, a record with
 * an SLA cost about three times a packed one in memory and twice on disk. Exactly lossless: a
 * value is packed only when reading it back gives the same JSON (times in the form toISOString
 * writes, known keys only); any other stays whole, as before.
 */

type JsonObject = { [key: string]: Json };

export const WORKFLOW_KEYS = ["sla", "occurrence"] as const satisfies readonly (keyof ThreatRecord)[];
const SLA_KEYS: ReadonlySet<string> = new Set(
  everyKeyOf<SlaRecord>()(["since", "due", "breach", "milestone"]),
);
/** breach column: 0 absent, 1 "added", 2 "removed". */
const BREACHES = ["added", "removed"] as const;
const MAX_INT32 = 2 ** 31 - 1;

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A time a column can hold and give back as this very string; null when not. */
const timeMs = (value: Json | undefined): number | null =>
  typeof value === "string" ? isoCanonicalMs(value) : null;

/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: toISOString writes 4-digit years between. */
const FIRST_CANONICAL_MS = -62_167_219_200_000;
const LAST_CANONICAL_MS = 253_402_300_799_999;
/** Epoch ms that format back to a canonical time (what timeMs gives), checked without a Date. */
export const isTimeCell = (v: unknown): v is number =>
  typeof v === "number" && Number.isInteger(v) && v >= FIRST_CANONICAL_MS && v <= LAST_CANONICAL_MS;

function slaFits(sla: Json | undefined): boolean {
  if (!isObject(sla)) return false;
  for (const key of Object.keys(sla)) if (!SLA_KEYS.has(key)) return false;
  const { since, due, breach, milestone } = sla;
  if (timeMs(since) === null || timeMs(due) === null) return false;
  if (breach !== undefined && breach !== "added" && breach !== "removed") return false;
  return milestone === undefined || typeof milestone === "string";
}

/** Whether the workflow fields of `value` (the others are checked by the table) can be packed. */
export function workflowFits(value: JsonObject): boolean {
  const { sla, occurrence } = value;
  if (sla !== undefined && !slaFits(sla)) return false;
  return (
    occurrence === undefined ||
    (typeof occurrence === "number" &&
      Number.isInteger(occurrence) &&
      occurrence > 0 &&
      occurrence <= MAX_INT32)
  );
}

/** A snapshot block's workflow columns (snapshot-threat-codec.ts, codec `threat-5`). */
export interface WorkflowBlock {
  slaSince?: unknown[] | undefined;
  slaDue?: unknown[] | undefined;
  slaBreach?: unknown[] | undefined;
  slaMilestone?: unknown[] | undefined;
  occurrence?: unknown[] | undefined;
}

export const WORKFLOW_COLUMNS = ["slaSince", "slaDue", "slaBreach", "slaMilestone", "occurrence"] as const;

/** One row's workflow fields as a snapshot block holds them (0: the first occurrence). */
export interface WorkflowCells {
  /** The SLA record's JSON (a SlaRecord). */
  sla: Record<string, string> | undefined;
  occurrence: number;
}

export class WorkflowColumns {
  /** SLA `since` as epoch ms; NaN: no SLA. */
  since: Float64Array;
  due: Float64Array;
  breach: Uint8Array;
  /** Index into the milestone titles; -1: none. */
  milestone: Int32Array;
  /** 0: absent (the first occurrence). */
  occurrence: Int32Array;

  constructor(capacity: number, from?: WorkflowColumns) {
    this.since = from ? from.since.slice() : new Float64Array(capacity).fill(Number.NaN);
    this.due = from ? from.due.slice() : new Float64Array(capacity);
    this.breach = from ? from.breach.slice() : new Uint8Array(capacity);
    this.milestone = from ? from.milestone.slice() : new Int32Array(capacity).fill(-1);
    this.occurrence = from ? from.occurrence.slice() : new Int32Array(capacity);
  }

  copy(): WorkflowColumns {
    return new WorkflowColumns(0, this);
  }

  grow(capacity: number): void {
    const since = new Float64Array(capacity).fill(Number.NaN);
    since.set(this.since);
    const due = new Float64Array(capacity);
    due.set(this.due);
    const breach = new Uint8Array(capacity);
    breach.set(this.breach);
    const milestone = new Int32Array(capacity).fill(-1);
    milestone.set(this.milestone);
    const occurrence = new Int32Array(capacity);
    occurrence.set(this.occurrence);
    Object.assign(this, { since, due, breach, milestone, occurrence });
  }

  hasSla(row: number): boolean {
    return !Number.isNaN(this.since[row] ?? Number.NaN);
  }

  /** Whether any of `rows` holds a workflow field (else the snapshot writes no such column). */
  any(rows: Int32Array): boolean {
    return rows.some((r) => this.hasSla(r) || (this.occurrence[r] ?? 0) > 0);
  }

  /** `value` fits (workflowFits, checked by the caller). */
  write(row: number, value: JsonObject, milestones: Interner): void {
    const sla = value["sla"];
    this.occurrence[row] = typeof value["occurrence"] === "number" ? value["occurrence"] : 0;
    if (!isObject(sla)) {
      this.clearSla(row);
      return;
    }
    this.since[row] = timeMs(sla["since"]) ?? Number.NaN;
    this.due[row] = timeMs(sla["due"]) ?? 0;
    const breach = sla["breach"];
    this.breach[row] = breach === "added" ? 1 : breach === "removed" ? 2 : 0;
    const milestone = sla["milestone"];
    this.milestone[row] = typeof milestone === "string" ? milestones.of(milestone) : -1;
  }

  /**
   * Row `i` of a block straight into the columns (no record, no time string built: a snapshot of
   * 30,000 SLAs loaded in a third of the time), `milestoneOf` mapping the block's title indexes to
   * the table's. The cells are checked by `cellsFit` first.
   */
  copyCells(row: number, block: WorkflowBlock, i: number, milestoneOf: readonly number[]): void {
    const since = block.slaSince?.[i] ?? null;
    this.occurrence[row] = Number(block.occurrence?.[i] ?? 0);
    if (since === null) {
      this.clearSla(row);
      return;
    }
    this.since[row] = Number(since);
    this.due[row] = Number(block.slaDue?.[i]);
    this.breach[row] = Number(block.slaBreach?.[i] ?? 0);
    const milestone = Number(block.slaMilestone?.[i] ?? -1);
    this.milestone[row] = milestone < 0 ? -1 : (milestoneOf[milestone] ?? -1);
  }

  /** The row's workflow fields, added to `value`. */
  read(row: number, value: JsonObject, milestones: readonly string[]): void {
    const since = this.since[row] ?? Number.NaN;
    if (!Number.isNaN(since)) value["sla"] = this.sla(row, since, milestones);
    const occurrence = this.occurrence[row] ?? 0;
    if (occurrence > 0) value["occurrence"] = occurrence;
  }

  /** The row's SLA start (epoch ms; NaN: no SLA). */
  sinceMs(row: number): number {
    return this.since[row] ?? Number.NaN;
  }

  /** The snapshot's cells of each column, read from row r. */
  cells(): Record<(typeof WORKFLOW_COLUMNS)[number], (r: number) => Json> {
    return {
      slaSince: (r) => (this.hasSla(r) ? (this.since[r] ?? 0) : null),
      slaDue: (r) => (this.hasSla(r) ? (this.due[r] ?? 0) : null),
      slaBreach: (r) => this.breach[r] ?? 0,
      slaMilestone: (r) => this.milestone[r] ?? -1,
      occurrence: (r) => this.occurrence[r] ?? 0,
    };
  }

  private sla(row: number, since: number, milestones: readonly string[]): JsonObject {
    const sla: JsonObject = {
      since: new Date(since).toISOString(),
      due: new Date(this.due[row] ?? 0).toISOString(),
    };
    const breach = BREACHES[(this.breach[row] ?? 0) - 1];
    if (breach !== undefined) sla["breach"] = breach;
    const milestone = this.milestone[row] ?? -1;
    if (milestone >= 0) sla["milestone"] = milestones[milestone] ?? "";
    return sla;
  }

  private clearSla(row: number): void {
    this.since[row] = Number.NaN;
    this.due[row] = 0;
    this.breach[row] = 0;
    this.milestone[row] = -1;
  }
}

const isIndex = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;

/** A row's workflow fields as they appear in its record. */
export function workflowJson(cells: WorkflowCells): JsonObject {
  const value: JsonObject = {};
  if (cells.sla) value["sla"] = { ...cells.sla };
  if (cells.occurrence > 0) value["occurrence"] = cells.occurrence;
  return value;
}

/** Whether row `i`'s workflow cells are well formed (copyCells may copy them). */
export function cellsFit(block: WorkflowBlock, i: number, milestones: number): boolean {
  const occurrence = block.occurrence?.[i] ?? 0;
  if (!(isIndex(occurrence) && occurrence <= MAX_INT32)) return false;
  const since = block.slaSince?.[i] ?? null;
  const due = block.slaDue?.[i] ?? null;
  const breach = block.slaBreach?.[i] ?? 0;
  const milestone = block.slaMilestone?.[i] ?? -1;
  if (since === null) return due === null && breach === 0 && milestone === -1;
  return (
    isTimeCell(since) &&
    isTimeCell(due) &&
    (breach === 0 || breach === 1 || breach === 2) &&
    (milestone === -1 || (isIndex(milestone) && milestone < milestones))
  );
}

/**
 * Row `i`'s workflow cells from a snapshot block (all absent before codec `threat-5`: no SLA, the
 * first occurrence); null when a cell is malformed. `milestones` is the block's title table.
 */
export function readWorkflowCells(
  block: WorkflowBlock,
  i: number,
  milestones: readonly string[],
): WorkflowCells | null {
  const occurrence = block.occurrence?.[i] ?? 0;
  if (!(
    typeof occurrence === "number" &&
    Number.isInteger(occurrence) &&
    occurrence >= 0 &&
    occurrence <= MAX_INT32
  ))
    return null;
  const since = block.slaSince?.[i] ?? null;
  const due = block.slaDue?.[i] ?? null;
  const breach = block.slaBreach?.[i] ?? 0;
  const milestone = block.slaMilestone?.[i] ?? -1;
  if (since === null) {
    return due === null && breach === 0 && milestone === -1 ? { sla: undefined, occurrence } : null;
  }
  if (!isTimeCell(since) || !isTimeCell(due)) return null;
  if (breach !== 0 && breach !== 1 && breach !== 2) return null;
  const sla: Record<string, string> = {
    since: new Date(since).toISOString(),
    due: new Date(due).toISOString(),
  };
  const b = BREACHES[breach - 1];
  if (b !== undefined) sla["breach"] = b;
  if (milestone !== -1) {
    const title = isIndex(milestone) ? milestones[milestone] : undefined;
    if (title === undefined) return null;
    sla["milestone"] = title;
  }
  return { sla, occurrence };
}
