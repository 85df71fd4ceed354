import { promisify } from "node:util";
import { constants as zlibConstants, deflate as deflateZlib, inflateSync } from "node:zlib";
import { ParsedRows, type Json } from "./journal-line.js";
import { RowError, type ThreatColumns } from "./snapshot-threat-codec.js";

/**
 * The parts of codec `threat-7` (store version 6) that differ from `threat-6`: the SLA times as
 * small numbers and the features' slices compressed. At 100,000 mapped threats with every feature
 * on, the SLA's two epoch-ms columns took 2.3 MB (13 digits a cell) and the slices, two columns of
 * opaque strings, about 7 MB. A `threat-7` block is turned back into the `threat-6` shape as it
 * loads (`expandCompact`), and every cell is then checked as before.
 *
 * - `slaSince`: the SLA's start as ms after `slaBase` (the earliest start), null: no SLA. The
 *   starts are the cycles that first saw a threat, so they repeat: most cells are a digit or two.
 * - `slaDue`: an index into `slaSpans`, the distinct lengths (due − since, ms) of the SLAs: one per
 *   severity's target, as configured.
 * - `slicePack`: the slice columns (`sliceNames[k]`'s is `[k]`, a cell per row, null: none) as
 *   the JSON text of that array of arrays, deflated (`packText`). A feature's slice repeats a
 *   lot from row to row (field names, the repository, hashes' alphabet).
 * - `rawPack`: the rows kept whole (`raw`: a risk acceptance's, a refused step's...) likewise, as
 *   the JSON text of their `[id, value]` pairs (`raw` is then empty): whole records repeat their
 *   keys, repository and URL.
 */

export const COMPACT_CODEC = "threat-7";

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
  const bytes = Buffer.from(json, "utf8");
  // Deflated on libuv's thread pool: a compaction's event loop is not held for it.
  return `${bytes.length}:${(await deflate(bytes)).toString("base64")}`;
}

/** The JSON value of a packText (RowError naming `what` when it is not one: a damaged file). */
export function unpackText(pack: string, what: string): unknown {
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
  try {
    return JSON.parse(text.toString("utf8"));
  } catch (err) {
    throw new RowError(`${what} is not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
}

/** The compressed text of the slice columns (`columns[k][i]`: row i's slice of name k, or null). */
export function packSlices(columns: readonly (readonly Json[])[]): Promise<string> {
  return packText(JSON.stringify(columns));
}

/** The slice columns of a `slicePack` (RowError when it is not one: a damaged file). */
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
  const outSince: unknown[] = new Array<unknown>(count);
  const outDue: unknown[] = new Array<unknown>(count);
  for (let i = 0; i < count; i++) {
    const s = since[i];
    const d = due[i];
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
 * compact (`slaTimes` reads them; `expandSla` turns them into `threat-6`'s for a row decoded whole).
 * Any other block as it is.
 */
export function unpackCompact(block: ThreatColumns): ThreatColumns {
  if (block.codec !== COMPACT_CODEC) return block;
  if (block.slices !== undefined) throw new RowError("slices are packed in threat-7 (slicePack)");
  if ((block.slaSince === undefined) !== (block.slaDue === undefined))
    throw new RowError("slaSince and slaDue come together");
  if (block.rawPack !== undefined && block.raw.length > 0)
    throw new RowError("raw is packed in threat-7 (rawPack)");
  const raw = block.rawPack === undefined ? block.raw : unpackRows(block.rawPack, "rawPack");
  if (block.slicePack === undefined) return { ...block, raw };
  if (block.sliceNames === undefined) throw new RowError("sliceNames and slicePack come together");
  return { ...block, raw, slices: unpackSlices(block.slicePack) };
}

/** A block (unpackCompact's) in the `threat-6` shape: its SLA cells as epoch ms. */
export function expandCompact(block: ThreatColumns): ThreatColumns {
  return block.codec === COMPACT_CODEC ? { ...block, ...expandSla(block) } : block;
}

/**
 * Row i's SLA start and due time (epoch ms) from a block's cells, whatever its codec; a cell that
 * is not well formed gives a value every check refuses.
 */
export function slaTimes(block: ThreatColumns): {
  since: (i: number) => unknown;
  due: (i: number, since: unknown) => unknown;
} {
  const since = block.slaSince ?? null;
  const due = block.slaDue ?? null;
  if (block.codec !== COMPACT_CODEC)
    return { since: (i) => (since === null ? null : since[i]), due: (i) => (due === null ? null : due[i]) };
  const base = block.slaBase ?? 0;
  const spans = block.slaSpans ?? [];
  return {
    since: (i) => {
      const s = since === null ? null : since[i];
      return s === null ? null : isInt(s) && s >= 0 ? base + s : BAD;
    },
    due: (i, start) => {
      const d = due === null ? null : due[i];
      if (start === null) return d === null ? null : BAD;
      const span = isInt(d) && d >= 0 ? spans[d] : undefined;
      return typeof start === "number" && span !== undefined ? start + span : BAD;
    },
  };
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
