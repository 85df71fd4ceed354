import { isAscii } from "node:buffer";
import { promisify } from "node:util";
import { constants as zlibConstants, crc32, deflate as deflateZlib, inflateSync } from "node:zlib";
import { StateError } from "../state/errors.js";
import { RowError } from "./snapshot-threat-codec.js";

/**
 * One feature's slice column as codec `threat-8` (store version 7) writes it: compressed on its
 * own, so that it is read (inflated) only when something reads that feature's slices, one column at
 * a time. An idle `sync` reads none (threat-7 inflated and parsed every slice of every threat at
 * load, ~40 ms of CPU and two strings a threat at 100,000 threats).
 *
 * `u8:<bytes>:<crc>:<base64>`: `bytes` the length of what inflates; `crc` the CRC-32 (hex) of the
 * compressed bytes, checked at load (a damaged file is refused at open, as before, not when its
 * column is first read); the inflated bytes are the row count (uint32 LE), each row's cell length
 * in UTF-16 units (int32 LE; -1: the row has no slice of this feature), then the cells' text in
 * UTF-8, one after the other. A column with a cell that is not well-formed UTF-16 (a lone
 * surrogate, which UTF-8 cannot carry) is written `json:<bytes>:<crc>:<base64>` instead: the JSON
 * text of its cells (null: none), as threat-7 wrote every column.
 */

const deflate = promisify(deflateZlib);
/** A lone surrogate: with the `u` flag a well-formed pair is one code point, and does not match. */
const LONE_SURROGATE = /\p{Cs}/u;
const HEX = /^[0-9a-f]{8}$/;

/** The pack of one column (`cells[i]`: row i's slice, or null). */
export async function packSliceColumn(cells: readonly (string | null)[]): Promise<string> {
  if (cells.some((cell) => cell !== null && LONE_SURROGATE.test(cell))) {
    return pack("json", Buffer.from(JSON.stringify(cells), "utf8"));
  }
  const texts: string[] = [];
  const head = Buffer.allocUnsafe(4 + 4 * cells.length);
  head.writeUInt32LE(cells.length, 0);
  cells.forEach((cell, i) => {
    head.writeInt32LE(cell === null ? -1 : cell.length, 4 + 4 * i);
    if (cell !== null) texts.push(cell);
  });
  return pack("u8", Buffer.concat([head, Buffer.from(texts.join(""), "utf8")]));
}

async function pack(form: string, bytes: Buffer): Promise<string> {
  // Deflated on libuv's thread pool: a compaction's event loop is not held for it.
  const packed = await deflate(bytes);
  return `${form}:${bytes.length}:${crc32(packed).toString(16).padStart(8, "0")}:${packed.toString("base64")}`;
}

/** A column's cells once inflated: row i's slice is `text.slice(starts[i], ends[i])`; starts[i] -1: none. */
interface Cells {
  text: string;
  starts: Int32Array;
  ends: Int32Array;
}

/**
 * A column as loaded: its compressed bytes, checked (RowError at load when the header or the
 * CRC-32 is wrong), inflated the first time a cell is read. Immutable once made; the copies of a
 * table share it.
 */
export class PackedSliceColumn {
  private packed: Buffer | null;
  private cells: Cells | null = null;

  private constructor(
    private readonly name: string,
    private readonly form: "u8" | "json",
    private readonly bytes: number,
    packed: Buffer,
    /** The block's row count: the column's cells are checked against it. */
    readonly count: number,
  ) {
    this.packed = packed;
  }

  /** The pack of column `name` of a block of `count` rows; RowError when it is damaged. */
  static parse(name: string, pack: string, count: number): PackedSliceColumn {
    const [form, bytesText, crc, base64] = splitHeader(pack);
    const bytes = Number(bytesText);
    const what = `slice column ${JSON.stringify(name)}`;
    if ((form !== "u8" && form !== "json") || !Number.isSafeInteger(bytes) || bytes < 0 || !HEX.test(crc))
      throw new RowError(`${what} does not decode (its header is malformed)`);
    // Buffer.from ignores characters outside base64: the CRC-32 then fails on what was dropped.
    const packed = Buffer.from(base64, "base64");
    if (crc32(packed).toString(16).padStart(8, "0") !== crc)
      throw new RowError(`${what} does not decode (its CRC-32 does not match)`);
    return new PackedSliceColumn(name, form, bytes, packed, count);
  }

  /** Row i's slice (i: the row's index in the block), or undefined: none. Inflates on first use. */
  cell(i: number): string | undefined {
    const cells = (this.cells ??= this.inflate());
    const start = cells.starts[i] ?? -1;
    return start < 0 ? undefined : cells.text.slice(start, cells.ends[i]);
  }

  /** `cell` with the column inflated once, up front: the reader of a scan of every row. */
  reader(): (i: number) => string | undefined {
    const { text, starts, ends } = (this.cells ??= this.inflate());
    return (i) => {
      const start = starts[i] ?? -1;
      return start < 0 ? undefined : text.slice(start, ends[i]);
    };
  }

  /** Every row's cell (null: none), as threat-7's columns hold them: a row decoded whole reads these. */
  all(): (string | null)[] {
    return Array.from({ length: this.count }, (_, i) => this.cell(i) ?? null);
  }

  /** Whether the column was inflated (tests: what an idle cycle reads). */
  get inflated(): boolean {
    return this.cells !== null;
  }

  private inflate(): Cells {
    const packed = this.packed;
    if (packed === null) throw new Error("unreachable: a column is inflated once");
    let raw: Buffer;
    try {
      const chunkSize = Math.min(64 * 1024 * 1024, Math.max(zlibConstants.Z_MIN_CHUNK, this.bytes));
      raw = inflateSync(packed, { chunkSize });
    } catch (err) {
      throw this.damaged(err instanceof Error ? err.message : String(err));
    }
    if (raw.length !== this.bytes) throw this.damaged(`${raw.length} bytes, not ${this.bytes}`);
    const cells = this.form === "json" ? this.fromJson(raw) : this.fromLengths(raw);
    this.packed = null;
    return cells;
  }

  private fromLengths(raw: Buffer): Cells {
    const count = raw.length >= 4 ? raw.readUInt32LE(0) : -1;
    if (count !== this.count || raw.length < 4 + 4 * count) throw this.damaged(`not ${this.count} rows`);
    const cells = raw.subarray(4 + 4 * count);
    // ASCII (most slices) as latin1: the same characters, kept outside V8's heap (store-fs.ts).
    const text = cells.toString(isAscii(cells) ? "latin1" : "utf8");
    const lengths = int32sLE(raw, 4, count);
    const starts = new Int32Array(count);
    const ends = new Int32Array(count);
    let at = 0;
    for (let i = 0; i < count; i++) {
      const length = lengths[i] ?? -1;
      if (length < -1) throw this.damaged(`row ${i}'s length is ${length}`);
      starts[i] = length < 0 ? -1 : at;
      if (length > 0) at += length;
      ends[i] = at;
    }
    if (at !== text.length) throw this.damaged(`its cells hold ${text.length} characters, not ${at}`);
    return { text, starts, ends };
  }

  private fromJson(raw: Buffer): Cells {
    let cells: unknown;
    try {
      cells = JSON.parse(raw.toString("utf8"));
    } catch (err) {
      throw this.damaged(err instanceof Error ? err.message : String(err));
    }
    if (!Array.isArray(cells) || cells.length !== this.count) throw this.damaged(`not ${this.count} rows`);
    const starts = new Int32Array(cells.length);
    const ends = new Int32Array(cells.length);
    const texts: string[] = [];
    let at = 0;
    cells.forEach((cell: unknown, i) => {
      if (cell !== null && typeof cell !== "string") throw this.damaged(`row ${i} is not a string`);
      starts[i] = cell === null ? -1 : at;
      if (cell !== null) {
        texts.push(cell);
        at += cell.length;
      }
      ends[i] = at;
    });
    return { text: texts.join(""), starts, ends };
  }

  /**
   * Checked at load (the CRC-32 of what inflates here), a column that does not decode now was
   * written so: the state's file is damaged. Refused as at open: nothing is read in part.
   */
  private damaged(why: string): StateError {
    return new StateError(
      "state_corrupt",
      `the state's slice column ${JSON.stringify(this.name)} does not decode (${why}); restore the state file from a backup, or move it aside and run \`threatbridge reconcile\``,
    );
  }
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** `count` int32 LE at `offset` of `bytes`: copied in one go where the machine is little-endian. */
function int32sLE(bytes: Buffer, offset: number, count: number): Int32Array {
  if (LITTLE_ENDIAN) {
    const start = bytes.byteOffset + offset;
    return new Int32Array(bytes.buffer.slice(start, start + 4 * count));
  }
  return Int32Array.from({ length: count }, (_, i) => bytes.readInt32LE(offset + 4 * i));
}

/** `form:bytes:crc:base64` split at its first three colons (base64 holds none). */
function splitHeader(pack: string): [string, string, string, string] {
  const a = pack.indexOf(":");
  const b = pack.indexOf(":", a + 1);
  const c = pack.indexOf(":", b + 1);
  if (a < 0 || b < 0 || c < 0) return ["", "", "", ""];
  return [pack.slice(0, a), pack.slice(a + 1, b), pack.slice(b + 1, c), pack.slice(c + 1)];
}
