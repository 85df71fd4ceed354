import type { Json } from "./journal-line.js";
import type { PackedSliceColumn } from "./slice-pack.js";
import { NO_SLICE, tagOf, type LoadedTags, type SliceTagger } from "./slice-tags.js";

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

/**
 * A column loaded from a `threat-8` snapshot (slice-pack.ts): its cells are read from the pack,
 * inflated the first time one is read; the rows written since are in `changed` (undefined: the row
 * has none now). `indexOf` maps a row to its index in the snapshot's block (-1: not from it).
 */
interface LoadedColumn {
  readonly source: PackedSliceColumn;
  readonly indexOf: Int32Array;
  readonly changed: Map<number, string | undefined>;
  /** The block's rows' tags as a compaction kept them (slice-tags.ts), or null: none kept. */
  readonly tags: LoadedTags | null;
}

/** A column held as one slot per row (undefined: none), or as loaded from a snapshot. */
type Column = (string | undefined)[] | LoadedColumn;

/**
 * A loaded column turns into slots once this many of its rows were written (a backfill writes
 * every row: a map entry per row would cost more than the slots).
 */
const CHANGED_MAX = 4_096;

export class SliceColumns {
  /** The feature names, in the order first used; a column's index is its name's. */
  private readonly names: string[];
  private readonly byName: Map<string, number>;
  /** One column per name: the row's slice; undefined: none. */
  private readonly columns: Column[];
  /** The columns loaded from a snapshot's packs (by index), read or not. */
  private readonly loaded: Set<number>;
  private capacity: number;

  constructor(capacity: number, from?: SliceColumns) {
    this.names = from ? from.names.slice() : [];
    this.byName = from ? new Map(from.byName) : new Map();
    this.columns = from ? from.columns.map(copyColumn) : [];
    this.loaded = new Set(from?.loaded);
    this.capacity = from ? from.capacity : capacity;
  }

  copy(): SliceColumns {
    return new SliceColumns(0, this);
  }

  grow(capacity: number): void {
    for (const column of this.columns) {
      if (!Array.isArray(column)) continue;
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
    return this.columns.some((_column, k) => rows.some((r) => this.get(k, r) !== undefined));
  }

  /** The row's slices become `slices` (fitting: slicesFit checked by the caller); undefined clears. */
  write(row: number, slices: Json | undefined): void {
    this.clear(row);
    if (!isObject(slices)) return;
    for (const name of Object.keys(slices)) this.put(this.column(name), row, slices[name] as string);
  }

  clear(row: number): void {
    for (let k = 0; k < this.columns.length; k++) this.put(k, row, undefined);
  }

  /** The row's slice of one feature, or undefined. */
  cell(name: string, row: number): string | undefined {
    const index = this.byName.get(name);
    return index === undefined ? undefined : this.get(index, row);
  }

  /**
   * The reader of one feature's column (row → its slice, or undefined), the name looked up once
   * and a loaded column read straight from its pack: a scan of every row (`status`'s counts).
   * Null when no row has a slice of that name.
   */
  reader(name: string): ((row: number) => string | undefined) | null {
    const k = this.byName.get(name);
    const column = k === undefined ? undefined : this.columns[k];
    if (column === undefined) return null;
    if (Array.isArray(column)) return (row) => column[row];
    const { changed, indexOf, source } = column;
    const cells = source.reader();
    return (row) => {
      if (changed.size > 0 && changed.has(row)) return changed.get(row);
      const i = row < indexOf.length ? (indexOf[row] ?? -1) : -1;
      return i < 0 ? undefined : cells(i);
    };
  }

  /** The row's slices, added to `value` as `slices` when it has any. */
  read(row: number, value: JsonObject): void {
    let entries: [string, string][] | null = null;
    for (let i = 0; i < this.columns.length; i++) {
      const slice = this.get(i, row);
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
    this.columns.forEach((_column, k) => {
      if (!rows.some((r) => this.get(k, r) !== undefined)) return;
      names.push(this.names[k] ?? "");
      columns.push((r) => this.get(k, r) ?? null);
    });
    return names.length === 0 ? null : { names, columns };
  }

  /** Row `i` of a block straight into the columns (cells checked by `sliceCellsFit` first). */
  copyCells(row: number, block: SliceBlock, i: number): void {
    this.clear(row);
    const names = block.sliceNames ?? [];
    block.slices?.forEach((cells, k) => {
      const cell = cells[i];
      if (typeof cell === "string") this.put(this.column(names[k] ?? ""), row, cell);
    });
  }

  /**
   * The columns of these names (made when missing), for a snapshot's rows to be copied straight
   * in; null when they would make more than MAX_SLICE_COLUMNS (the rows are then taken one by one).
   */
  columnsOf(names: readonly string[]): (string | undefined)[][] | null {
    if (!this.room(names)) return null;
    return names.map((name) => this.slots(this.column(name)));
  }

  /**
   * A `threat-8` block's packed columns as these names' columns, read from the packs when first
   * used (`indexOf`: each row's index in the block, filled as the block's rows are copied in);
   * false when they would make more than MAX_SLICE_COLUMNS or a name has a column already.
   */
  load(
    names: readonly string[],
    packs: readonly PackedSliceColumn[],
    indexOf: Int32Array,
    tags: readonly (LoadedTags | null)[] = [],
  ): boolean {
    if (!this.room(names) || names.some((name) => this.byName.has(name))) return false;
    names.forEach((name, k) => {
      const source = packs[k];
      if (source === undefined) return;
      this.byName.set(name, this.names.length);
      this.loaded.add(this.names.length);
      this.names.push(name);
      this.columns.push({ source, indexOf, changed: new Map(), tags: tags[k] ?? null });
    });
    return true;
  }

  /**
   * The reader of one feature's tags (row → its slice's tag, NO_SLICE: none), or null when no row
   * has a slice of that name. A column loaded with tags of this tagger's id is read from them (its
   * rows written since from their text): not inflated. Any other is tagged from its slices.
   */
  tagReader(name: string, tagger: SliceTagger): ((row: number) => number) | null {
    const k = this.byName.get(name);
    const column = k === undefined ? undefined : this.columns[k];
    if (column === undefined) return null;
    const ofText = (slice: string | undefined): number =>
      slice === undefined ? NO_SLICE : tagOf(tagger, slice);
    // Tags kept under this tagger's id, unpacked now (null: none, or they do not decode).
    const tags =
      Array.isArray(column) || column.tags?.id !== tagger.id ? null : (column.tags?.read() ?? null);
    if (Array.isArray(column) || tags === null) {
      const cell = this.reader(name);
      return cell === null ? null : (row) => ofText(cell(row));
    }
    const { changed, indexOf } = column;
    return (row) => {
      if (changed.size > 0 && changed.has(row)) return ofText(changed.get(row));
      const i = row < indexOf.length ? (indexOf[row] ?? -1) : -1;
      return i < 0 ? NO_SLICE : (tags[i] ?? NO_SLICE);
    };
  }

  /** The names whose column came from a snapshot's pack and was read since (tests, benchmarks). */
  inflated(): string[] {
    return this.names.filter((_name, k) => {
      const column = this.columns[k];
      return column !== undefined && !Array.isArray(column) ? column.source.inflated : this.loaded.has(k);
    });
  }

  private get(k: number, row: number): string | undefined {
    const column = this.columns[k];
    if (column === undefined) return undefined;
    if (Array.isArray(column)) return column[row];
    const { changed, indexOf, source } = column;
    if (changed.size > 0 && changed.has(row)) return changed.get(row);
    const i = row < indexOf.length ? (indexOf[row] ?? -1) : -1;
    return i < 0 ? undefined : source.cell(i);
  }

  private put(k: number, row: number, slice: string | undefined): void {
    const column = this.columns[k];
    if (column === undefined) return;
    if (Array.isArray(column)) {
      column[row] = slice;
      return;
    }
    column.changed.set(row, slice);
    if (column.changed.size > CHANGED_MAX) this.slots(k);
  }

  /** Column k as one slot per row (a loaded column is read whole, once). */
  private slots(k: number): (string | undefined)[] {
    const column = this.columns[k];
    if (Array.isArray(column)) return column;
    const slots = new Array<string | undefined>(this.capacity);
    for (let row = 0; row < this.capacity; row++) slots[row] = this.get(k, row);
    this.columns[k] = slots;
    return slots;
  }

  /** The index of the column of `name`, made when missing. */
  private column(name: string): number {
    let index = this.byName.get(name);
    if (index === undefined) {
      index = this.names.length;
      this.names.push(name);
      this.byName.set(name, index);
      this.columns.push(new Array<string | undefined>(this.capacity).fill(undefined));
    }
    return index;
  }
}

function copyColumn(column: Column): Column {
  return Array.isArray(column)
    ? column.slice()
    : {
        source: column.source,
        indexOf: column.indexOf,
        changed: new Map(column.changed),
        tags: column.tags,
      };
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
