import type { Json } from "./journal-line.js";

/**
 * The plug-in features' slices (ThreatRecord.slices: an opaque string per feature name) as columns
 * of the threat table (threat-table.ts): one string column per feature name, made when the name is
 * first used. Kept whole in `extra`, every record with a slice lost its packed form (the whole
 * record as objects, several times the memory). One column per name holds a row's slice in one
 * array slot; one small array per row cost about 50 bytes a row more at 100,000 rows with two
 * features (measured with process.memoryUsage). Any name is a column, `__proto__` too (names live
 * in a Map and the record is rebuilt with Object.fromEntries, which defines own properties).
 *
 * Lossless: every object of strings with at least one key packs (an empty `slices: {}` stays whole;
 * withSlice removes `slices` when it empties). The read-back object holds the same names and
 * strings; its keys come in the order the names were first used (the table already gives a record's
 * keys in an order of its own).
 */

type JsonObject = { [key: string]: Json };

/**
 * At most this many feature names get a column (each costs a slot per row, 8 bytes at 100,000
 * rows: 0.8 MB): features are the registry's few, and a record naming others beyond it stays whole.
 */
export const MAX_SLICE_COLUMNS = 64;

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Whether `slices` (a record's field) can be packed: absent, or a non-empty object of strings. */
export function slicesFit(slices: Json | undefined): boolean {
  if (slices === undefined) return true;
  if (!isObject(slices)) return false;
  let count = 0;
  for (const key of Object.keys(slices)) {
    if (typeof slices[key] !== "string") return false;
    count++;
  }
  return count > 0;
}

/** A snapshot block's slice columns (snapshot-threat-codec.ts, codec `threat-6`). */
export interface SliceBlock {
  sliceNames?: string[] | undefined;
  slices?: unknown[][] | undefined;
}

export class SliceColumns {
  /** The feature names, in the order first used; a column's index is its name's. */
  private readonly names: string[];
  private readonly byName: Map<string, number>;
  /** One column per name: the row's slice; undefined: none. */
  private readonly columns: (string | undefined)[][];
  private capacity: number;

  constructor(capacity: number, from?: SliceColumns) {
    this.names = from ? from.names.slice() : [];
    this.byName = from ? new Map(from.byName) : new Map();
    this.columns = from ? from.columns.map((column) => column.slice()) : [];
    this.capacity = from ? from.capacity : capacity;
  }

  copy(): SliceColumns {
    return new SliceColumns(0, this);
  }

  grow(capacity: number): void {
    for (const column of this.columns) {
      const old = column.length;
      column.length = capacity;
      column.fill(undefined, old);
    }
    this.capacity = capacity;
  }

  /** Whether the columns can hold these names (at most MAX_SLICE_COLUMNS names in all). */
  room(names: Iterable<string>): boolean {
    let added = 0;
    for (const name of names) if (!this.byName.has(name)) added++;
    return added === 0 || this.names.length + added <= MAX_SLICE_COLUMNS;
  }

  /** Whether any of `rows` holds a slice (else the snapshot writes no slice column). */
  any(rows: Int32Array): boolean {
    return this.columns.some((column) => rows.some((r) => column[r] !== undefined));
  }

  /** The row's slices become `slices` (fitting: slicesFit checked by the caller); undefined clears. */
  write(row: number, slices: Json | undefined): void {
    this.clear(row);
    if (!isObject(slices)) return;
    for (const name of Object.keys(slices)) this.column(name)[row] = slices[name] as string;
  }

  clear(row: number): void {
    for (const column of this.columns) column[row] = undefined;
  }

  /** The row's slice of one feature, or undefined. */
  cell(name: string, row: number): string | undefined {
    const index = this.byName.get(name);
    return index === undefined ? undefined : this.columns[index]?.[row];
  }

  /** The row's slices, added to `value` as `slices` when it has any. */
  read(row: number, value: JsonObject): void {
    let entries: [string, string][] | null = null;
    for (let i = 0; i < this.columns.length; i++) {
      const slice = this.columns[i]?.[row];
      if (slice === undefined) continue;
      (entries ??= []).push([this.names[i] ?? "", slice]);
    }
    if (entries !== null) value["slices"] = Object.fromEntries(entries);
  }

  /**
   * The snapshot's slice members for `rows`: the names that some row uses and one column each
   * (null: no slice), or null when no row has a slice.
   */
  block(rows: Int32Array): { names: string[]; columns: ((r: number) => Json)[] } | null {
    const names: string[] = [];
    const columns: ((r: number) => Json)[] = [];
    this.columns.forEach((column, i) => {
      if (!rows.some((r) => column[r] !== undefined)) return;
      names.push(this.names[i] ?? "");
      columns.push((r) => column[r] ?? null);
    });
    return names.length === 0 ? null : { names, columns };
  }

  /** Row `i` of a block straight into the columns (cells checked by `sliceCellsFit` first). */
  copyCells(row: number, block: SliceBlock, i: number): void {
    this.clear(row);
    const names = block.sliceNames ?? [];
    block.slices?.forEach((cells, k) => {
      const cell = cells[i];
      if (typeof cell === "string") this.column(names[k] ?? "")[row] = cell;
    });
  }

  /**
   * The columns of these names (made when missing), for a snapshot's rows to be copied straight
   * in; null when they would make more than MAX_SLICE_COLUMNS (the rows are then taken one by one).
   */
  columnsOf(names: readonly string[]): (string | undefined)[][] | null {
    if (!this.room(names)) return null;
    return names.map((name) => this.column(name));
  }

  private column(name: string): (string | undefined)[] {
    let index = this.byName.get(name);
    if (index === undefined) {
      index = this.names.length;
      this.names.push(name);
      this.byName.set(name, index);
      this.columns.push(new Array<string | undefined>(this.capacity).fill(undefined));
    }
    return this.columns[index] as (string | undefined)[];
  }
}

/** Checks a block's slice members once: as many columns as names, names distinct, `count` cells each. */
export function checkSliceBlock(block: SliceBlock, count: number): string | null {
  const names = block.sliceNames;
  const columns = block.slices;
  if (names === undefined && columns === undefined) return null;
  if (names === undefined || columns === undefined) return "sliceNames and slices come together";
  if (names.length !== columns.length) return `${columns.length} slice columns for ${names.length} names`;
  if (new Set(names).size !== names.length) return "a slice name appears twice";
  for (let k = 0; k < columns.length; k++)
    if (columns[k]?.length !== count)
      return `slice column ${JSON.stringify(names[k])} has ${columns[k]?.length} cells, not ${count}`;
  return null;
}

/** The names of row `i`'s slices in a block (its cells well formed: sliceCellsFit). */
export function sliceNamesAt(block: SliceBlock, i: number): string[] {
  const names: string[] = [];
  block.slices?.forEach((cells, k) => {
    if (typeof cells[i] === "string") names.push(block.sliceNames?.[k] ?? "");
  });
  return names;
}

/** Whether row `i`'s slice cells are well formed: each a string or null. */
export function sliceCellsFit(block: SliceBlock, i: number): boolean {
  const columns = block.slices;
  if (columns === undefined) return true;
  for (const cells of columns) {
    const cell = cells[i];
    if (cell !== null && typeof cell !== "string") return false;
  }
  return true;
}

/** Row `i`'s slices from a block (undefined: none); null when a cell is malformed. */
export function readSliceCells(block: SliceBlock, i: number): Record<string, string> | undefined | null {
  if (!sliceCellsFit(block, i)) return null;
  const entries: [string, string][] = [];
  const names = block.sliceNames ?? [];
  block.slices?.forEach((cells, k) => {
    const cell = cells[i];
    if (typeof cell === "string") entries.push([names[k] ?? "", cell]);
  });
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}
