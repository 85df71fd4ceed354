import type { Json } from "./journal-line.js";
import { RowError } from "./snapshot-threat-codec.js";

/**
 * What codec `threat-8`'s `colPack` holds once inflated (threat-compact.ts): a line of JSON, then
 * binary cells. The line is `{"columns": {name: column}, "binary": [[name, type, rows], ...]}`: the
 * columns written as threat-7 writes them (a string of digits, or an array), and the columns of
 * numbers (`BINARY_COLUMNS`) as `rows` cells each, little-endian, one column after the other
 * after the newline. JSON.parse read their 300,000 numbers at 100,000 threats (GitHub's issue ids
 * are too large for V8's small integers: a heap number each); these are typed arrays at once.
 */

/** The binary columns and their cells: `f64` (NaN: none) or `i32` (-1: none). */
export const BINARY_COLUMNS = { issueId: "f64", slaSince: "f64", slaDue: "i32" } as const;
type BinaryName = keyof typeof BINARY_COLUMNS;
/** A colPack's binary columns by name. */
export type BinaryColumns = Partial<Record<BinaryName, Float64Array | Int32Array>>;
const WIDTH = { f64: 8, i32: 4 } as const;

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** A column of numbers a cell a row, as its binary cells (null: none, as threat-7 wrote it). */
export function binaryColumn(name: BinaryName, cells: readonly Json[]): Float64Array | Int32Array {
  const none = BINARY_COLUMNS[name] === "f64" ? Number.NaN : -1;
  const values = cells.map((cell) => (typeof cell === "number" ? cell : none));
  return BINARY_COLUMNS[name] === "f64" ? Float64Array.from(values) : Int32Array.from(values);
}

/** The bytes of a colPack: `columns` as JSON, then `binary`'s cells. */
export function columnBytes(
  columns: Readonly<Record<string, Json>>,
  binary: Readonly<BinaryColumns>,
): Buffer {
  const listed = Object.entries(binary) as [BinaryName, Float64Array | Int32Array][];
  const head = JSON.stringify({
    columns,
    binary: listed.map(([name, cells]) => [name, BINARY_COLUMNS[name], cells.length]),
  });
  const bodies = listed.map(([, cells]) => {
    const bytes = Buffer.allocUnsafe(cells.byteLength);
    cells.forEach((v, i) =>
      cells instanceof Float64Array ? bytes.writeDoubleLE(v, 8 * i) : bytes.writeInt32LE(v, 4 * i),
    );
    return bytes;
  });
  return Buffer.concat([Buffer.from(`${head}\n`, "utf8"), ...bodies]);
}

/** A colPack's columns by name (each an array, a string of digits or binary cells); RowError when malformed. */
export function unpackColumns(bytes: Buffer): Record<string, unknown> {
  const newline = bytes.indexOf(10);
  let head: unknown;
  try {
    head = JSON.parse(bytes.toString("utf8", 0, newline < 0 ? bytes.length : newline));
  } catch (err) {
    throw new RowError(`colPack is not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (typeof head !== "object" || head === null || !("columns" in head) || !("binary" in head))
    throw new RowError("colPack is not columns");
  const { columns, binary } = head;
  if (typeof columns !== "object" || columns === null || Array.isArray(columns) || !Array.isArray(binary))
    throw new RowError("colPack is not columns");
  const out: Record<string, unknown> = { ...columns };
  let at = newline + 1;
  for (const entry of binary) {
    const [name, type, rows] = Array.isArray(entry) ? (entry as unknown[]) : [];
    if (
      typeof name !== "string" ||
      !Object.hasOwn(BINARY_COLUMNS, name) ||
      type !== BINARY_COLUMNS[name as BinaryName] ||
      !Number.isSafeInteger(rows) ||
      (rows as number) < 0 ||
      Object.hasOwn(out, name)
    )
      throw new RowError(`colPack's binary column ${JSON.stringify(name)} is malformed`);
    const size = WIDTH[type as "f64" | "i32"] * (rows as number);
    if (newline < 0 || at + size > bytes.length) throw new RowError(`colPack's column ${name} is short`);
    out[name] = cellsOf(bytes.subarray(at, at + size), type as "f64" | "i32");
    at += size;
  }
  if (newline >= 0 && at !== bytes.length) throw new RowError("colPack holds bytes past its columns");
  return out;
}

function cellsOf(bytes: Buffer, type: "f64" | "i32"): Float64Array | Int32Array {
  if (LITTLE_ENDIAN) {
    const copy = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
    return type === "f64" ? new Float64Array(copy) : new Int32Array(copy);
  }
  const n = bytes.length / WIDTH[type];
  return type === "f64"
    ? Float64Array.from({ length: n }, (_, i) => bytes.readDoubleLE(8 * i))
    : Int32Array.from({ length: n }, (_, i) => bytes.readInt32LE(4 * i));
}
