import { promisify } from "node:util";
import { constants as zlibConstants, deflate as deflateZlib, inflateSync } from "node:zlib";
import { ParsedRows, type Json } from "./journal-line.js";
import { unpackColumns } from "./column-pack.js";
import {
  DIGIT_COLUMNS,
  RowError,
  type ThreatColumns,
  type ThreatColumnsDoc,
} from "./snapshot-threat-codec.js";

/**
 * The parts of codec `threat-7` (store version 6) that differ from `threat-6`: the SLA times as
 * small numbers and the features' slices compressed. At 100,000 mapped threats with every feature
 * on, the SLA's two epoch-ms columns took 2.3 MB (13 digits a cell) and the slices, two columns of
 * opaque strings, about 7 MB. As a `threat-7` block loads its packed parts are unpacked
 * (`unpackCompact`) and its SLA cells read in place (ThreatTable's fastCells); a row that is decoded whole sees
 * the block in the `threat-6` shape (`expandCompact`). Every cell is checked as before.
 *
 * - `slaSince`: the SLA's start as ms after `slaBase` (the earliest start), null: no SLA. A cycle
 *   starts the SLAs of all the threats it first sees at its own time, so the starts repeat and
 *   stay close: the cells are short.
 * - `slaDue`: an index into `slaSpans`, the distinct lengths (due − since, ms) of the SLAs: one per
 *   severity's target, as configured.
 * - `slicePack`: the slice columns (`sliceNames[k]`'s is `[k]`, a cell per row, null: none) as
 *   the JSON text of that array of arrays, deflated (`packText`). A feature's slice repeats a
 *   lot from row to row (field names, the repository, hashes' alphabet).
 * - The columns of small numbers (DIGIT_COLUMNS: status, severity, closed, link...) are written as
 *   a string of one digit a row when every value fits (else as an array, as before): about 2
 *   bytes a cell less, and a string JSON.parse reads at once rather than 100,000 numbers.
 * - `rawPack`: the rows kept whole (`raw`: a risk acceptance's, a refused step's...) likewise, as
 *   the JSON text of their `[id, value]` pairs (`raw` is then empty): whole records repeat their
 *   keys, repository and URL.
 *
 * Codec `threat-8` (store version 7, written since) is `threat-7` with two changes: the columns
 * only the features fill (`PACKED_COLUMNS`) are written inside one `colPack` (a packText of an
 * object of those columns, each as threat-7 writes it), and each slice column is packed on its own
 * (`slicePacks`, slice-pack.ts), read the first time its feature's slices are.
 */

export const COMPACT_CODEC = "threat-7";
/**
 * Codec `threat-8` (store version 7): `threat-7` with the columns only the features write packed
 * together (`colPack`) and each feature's slice column packed on its own (`slicePacks`, read when
 * first used: slice-pack.ts). Both the compact codecs share the rest.
 */
export const PACKED_CODEC = "threat-8";
/** Whether a block is written in one of the compact codecs (small SLA cells, digit columns, packs). */
export const isCompactCodec = (codec: string): boolean => codec === COMPACT_CODEC || codec === PACKED_CODEC;

/**
 * The columns `threat-8` writes inside `colPack` (each as `threat-7` writes it: an array, or a
 * string of digits): those only the workflow features and the groups' sub-issues fill. In
 * `threat-7` they were 1.1 MB of the 16 MB at 100,000 threats with every feature on; deflated
 * together, about 80 kB (the SLA's starts and spans repeat, most rows have no later occurrence).
 */
export const PACKED_COLUMNS = [
  "issueId",
  "slaSince",
  "slaDue",
  "slaBreach",
  "slaMilestone",
  "occurrence",
] as const satisfies readonly (keyof ThreatColumns)[];

const deflate = promisify(deflateZlib);
/** Inflate's output buffer at most (a larger text is inflated in several, then joined). */
const MAX_CHUNK = 64 * 1024 * 1024;

/**
 * JSON text deflated (zlib's format: its Adler-32 checks what inflates), as `<bytes>:<base64>`
 * with `bytes` the text's length in UTF-8, so that inflate writes it into one buffer (in 16 KB
 * chunks joined after, a tenth of the unpacking at 100,000 threats) and its length is checked.
 * A `slicePack`, a `rawPack`, a `raw-pack` collection.
 */
export async function packText(json: string): Promise<string> {
  return packBytes(Buffer.from(json, "utf8"));
}

/** Bytes packed as packText packs a text's. */
export async function packBytes(bytes: Buffer): Promise<string> {
  // Deflated on libuv's thread pool: a compaction's event loop is not held for it.
  return `${bytes.length}:${(await deflate(bytes)).toString("base64")}`;
}

/** The JSON value of a packText (RowError naming `what` when it is not one: a damaged file). */
export function unpackText(pack: string, what: string): unknown {
  const text = unpackBytes(pack, what);
  try {
    return JSON.parse(text.toString("utf8"));
  } catch (err) {
    throw new RowError(`${what} is not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
}

/** The bytes of a packBytes (RowError naming `what` when they do not inflate: a damaged file). */
export function unpackBytes(pack: string, what: string): Buffer {
  const colon = pack.indexOf(":");
  const bytes = Number(pack.slice(0, colon));
  if (colon < 1 || !Number.isSafeInteger(bytes) || bytes < 0)
    throw new RowError(`${what} does not decode (no length)`);
  let text: Buffer;
  try {
    // Buffer.from ignores characters outside base64; inflate then fails on what is left over,
    // missing or changed (Adler-32), and JSON.parse on what the checks still let through.
    const chunkSize = Math.min(MAX_CHUNK, Math.max(zlibConstants.Z_MIN_CHUNK, bytes));
    text = inflateSync(Buffer.from(pack.slice(colon + 1), "base64"), { chunkSize });
  } catch (err) {
    throw new RowError(`${what} does not decode (${err instanceof Error ? err.message : String(err)})`);
  }
  if (text.length !== bytes) throw new RowError(`${what} holds ${text.length} bytes, not ${bytes}`);
  return text;
}

/** The slice columns of a threat-7 `slicePack` (RowError when it is not one: a damaged file). */
export function unpackSlices(pack: string): unknown[][] {
  const columns = unpackText(pack, "slicePack");
  if (!Array.isArray(columns) || !columns.every((column) => Array.isArray(column)))
    throw new RowError("slicePack is not an array of columns");
  return columns as unknown[][];
}

/** `[key, value]` rows of a packText (a `rawPack`, a `raw-pack` collection), checked as ParsedRows. */
export function unpackRows(pack: string, what: string): [string, Json][] {
  const rows = ParsedRows.safeParse(unpackText(pack, what));
  if (!rows.success) throw new RowError(`${what}: expected rows of [key, value]`);
  return rows.data;
}

/** A cell that every check refuses (a malformed compact cell stays malformed once expanded). */
const BAD = "malformed";
const isInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);

/** The SLA cells of `threat-7` (since after base, due as a span index) as `threat-6`'s epoch ms. */
function expandSla(block: ThreatColumns): Pick<ThreatColumns, "slaSince" | "slaDue"> {
  const since = block.slaSince;
  const due = block.slaDue;
  if (since === undefined && due === undefined) return {};
  if (since === undefined || due === undefined) throw new RowError("slaSince and slaDue come together");
  const base = block.slaBase ?? 0;
  const spans = block.slaSpans ?? [];
  const count = since.length;
  const sinceBinary = (since as unknown) instanceof Float64Array;
  const dueBinary = (due as unknown) instanceof Int32Array;
  const outSince: unknown[] = new Array<unknown>(count);
  const outDue: unknown[] = new Array<unknown>(count);
  for (let i = 0; i < count; i++) {
    // threat-8's binary cells say "none" as NaN and -1 (column-pack.ts).
    const s = sinceBinary && Number.isNaN(since[i]) ? null : since[i];
    const d = dueBinary && due[i] === -1 ? null : due[i];
    if (s === null) {
      outSince[i] = null;
      outDue[i] = d === null ? null : BAD;
      continue;
    }
    const start = isInt(s) && s >= 0 ? base + s : BAD;
    const span = isInt(d) && d >= 0 ? spans[d] : undefined;
    outSince[i] = start;
    outDue[i] = typeof start === "number" && span !== undefined ? start + span : BAD;
  }
  if (due.length !== count) outDue.length = due.length;
  return { slaSince: outSince, slaDue: outDue };
}

/**
 * A `threat-7` block with its slices unpacked (`slices`, as in `threat-6`); its SLA cells stay
 * compact (the table reads them in place; `expandSla` turns them into `threat-6`'s for a row
 * decoded whole).
 * Any other block as it is.
 */
export function unpackCompact(doc: ThreatColumnsDoc): ThreatColumns {
  const block = digitColumns(withPackedColumns(doc));
  if (!isCompactCodec(block.codec)) return block;
  if (block.slices !== undefined) throw new RowError(`slices are packed in ${block.codec}`);
  if ((block.slaSince === undefined) !== (block.slaDue === undefined))
    throw new RowError("slaSince and slaDue come together");
  if (block.rawPack !== undefined && block.raw.length > 0)
    throw new RowError("raw is packed in threat-7 (rawPack)");
  const raw = block.rawPack === undefined ? block.raw : unpackRows(block.rawPack, "rawPack");
  if (block.codec === PACKED_CODEC) {
    if (block.slicePack !== undefined)
      throw new RowError("slices are packed a column each in threat-8 (slicePacks)");
    if ((block.sliceNames === undefined) !== (block.slicePacks === undefined))
      throw new RowError("sliceNames and slicePacks come together");
    return { ...block, raw };
  }
  if (block.slicePacks !== undefined) throw new RowError("slicePacks are threat-8's");
  if (block.sliceTags !== undefined) throw new RowError("sliceTags are threat-8's");
  if (block.slicePack === undefined) return { ...block, raw };
  if (block.sliceNames === undefined) throw new RowError("sliceNames and slicePack come together");
  return { ...block, raw, slices: unpackSlices(block.slicePack) };
}

const DIGITS = /^[0-9]*$/;

/**
 * A string of digits as its column's values (value = digit − offset), in a typed array (read by
 * index like the array it stands for); null when a character is not a digit.
 */
function fromDigits(digits: string, offset: number): Int8Array | null {
  if (!DIGITS.test(digits)) return null;
  const codes = Buffer.from(digits, "latin1");
  const values = new Int8Array(codes.length);
  const zero = 48 + offset;
  for (let i = 0; i < codes.length; i++) values[i] = (codes[i] ?? zero) - zero;
  return values;
}

/**
 * The block with threat-7's digit columns as typed arrays (standing for the arrays of numbers the
 * other codecs hold: the decoder only reads cells by index and the length); a string column in any
 * other codec, or a character that is not a digit, is a RowError.
 */
function digitColumns(doc: ThreatColumnsDoc): ThreatColumns {
  const block: Record<string, unknown> = { ...doc };
  for (const [name, offset] of Object.entries(DIGIT_COLUMNS)) {
    const column = block[name];
    if (typeof column !== "string") continue;
    if (!isCompactCodec(doc.codec)) throw new RowError(`column ${name} is not an array`);
    const values = fromDigits(column, offset);
    if (values === null) throw new RowError(`column ${name} holds a character that is not a digit`);
    block[name] = values;
  }
  return block as ThreatColumns;
}

/**
 * A `threat-8` block with the columns of its `colPack` in place (each an array, or a string of
 * digits that digitColumns reads); any other block as it is. A pack holding any other name, or a
 * column the block also holds outside it, is a RowError.
 */
function withPackedColumns(doc: ThreatColumnsDoc): ThreatColumnsDoc {
  if (doc.colPack === undefined) return doc;
  if (doc.codec !== PACKED_CODEC) throw new RowError("colPack is threat-8's");
  const packed = unpackColumns(unpackBytes(doc.colPack, "colPack"));
  const known: ReadonlySet<string> = new Set(PACKED_COLUMNS);
  const block: Record<string, unknown> = { ...doc };
  for (const [name, column] of Object.entries(packed)) {
    if (!known.has(name)) throw new RowError(`colPack holds an unknown column ${JSON.stringify(name)}`);
    if (block[name] !== undefined) throw new RowError(`column ${name} is both in colPack and outside it`);
    if (
      !Array.isArray(column) &&
      !ArrayBuffer.isView(column) &&
      !(typeof column === "string" && Object.hasOwn(DIGIT_COLUMNS, name))
    )
      throw new RowError(`column ${name} is not an array`);
    block[name] = column;
  }
  return block as ThreatColumnsDoc;
}

/**
 * The column's cells as a string of digits (threat-7), or null when some value is not one digit
 * once `offset` is added.
 */
export function toDigits(rows: Int32Array, of: (r: number) => Json, offset: number): string | null {
  const bytes = Buffer.allocUnsafe(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const v = of(rows[i] ?? 0);
    if (typeof v !== "number") return null;
    const d = v + offset;
    if (!(d >= 0 && d <= 9 && d % 1 === 0)) return null;
    bytes[i] = 48 + d;
  }
  return bytes.toString("latin1");
}

/** A block (unpackCompact's) in the `threat-6` shape: its SLA cells as epoch ms. */
export function expandCompact(block: ThreatColumns): ThreatColumns {
  return isCompactCodec(block.codec) ? { ...block, ...expandSla(block) } : block;
}

/**
 * The `threat-7` SLA cells of `rows`: since after the earliest start, due as an index into the
 * distinct spans. `since(r)` is NaN when row r has no SLA.
 */
export function compactSla(
  rows: Int32Array,
  since: (r: number) => number,
  due: (r: number) => number,
): { base: number; spans: number[]; since: (r: number) => Json; due: (r: number) => Json } {
  let base = Number.POSITIVE_INFINITY;
  for (const r of rows) {
    const s = since(r);
    if (s < base) base = s;
  }
  if (!Number.isFinite(base)) base = 0;
  const spans: number[] = [];
  const spanIndex = new Map<number, number>();
  const indexOf = (span: number): number => {
    let k = spanIndex.get(span);
    if (k === undefined) {
      k = spans.length;
      spans.push(span);
      spanIndex.set(span, k);
    }
    return k;
  };
  return {
    base,
    spans,
    since: (r) => {
      const s = since(r);
      return Number.isNaN(s) ? null : s - base;
    },
    due: (r) => {
      const s = since(r);
      return Number.isNaN(s) ? null : indexOf(due(r) - s);
    },
  };
}
