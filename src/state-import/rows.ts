import type { Json } from "./journal-line.js";
import { ThreatTable } from "./threat-table.js";

/**
 * One keyed collection of the journaled store in memory. A plain Map for the small collections;
 * the `threats` collection, which grows with the organization, is a column table
 * (threat-table.ts) that holds a mapped threat in ~180 bytes instead of ~600 as objects
 * (so that a no-change sync peaks at ≤ 200 MB RSS at 100k mapped threats, ≤ 400 MB at 300k).
 */
export interface Rows {
  get(key: string): Json | undefined;
  has(key: string): boolean;
  set(key: string, value: Json): unknown;
  delete(key: string): boolean;
  entries(): IterableIterator<[string, Json]>;
  keys(): IterableIterator<string>;
  readonly size: number;
}

export const THREATS = "threats";

/** The empty container of a collection. */
export function newRows(collection: string): Rows {
  return collection === THREATS ? new ThreatTable() : new Map<string, Json>();
}

/** Rows that copy themselves cheaply (the column table's slices, a pack not yet read). */
interface SelfCopying extends Rows {
  copy(): Rows;
}

function copiesItself(rows: Rows): rows is SelfCopying {
  return typeof (rows as Partial<SelfCopying>).copy === "function";
}

/** A copy that later changes to `rows` do not affect (values are immutable: shallow is enough). */
export function copyRows(rows: Rows): Rows {
  if (copiesItself(rows)) return rows.copy();
  return new Map(rows.entries());
}
