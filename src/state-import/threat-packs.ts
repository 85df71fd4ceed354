import { z } from "zod";
import { crcHex, inflate, isInt, need, parseJson, parseWith, unpack } from "./packs.js";

/**
 * The packed parts of a `threat-8` block (threat-block.ts): columns of small numbers as strings of
 * digits, the features' columns together in `colPack`, and each feature's slice column on its own.
 */

/** The columns that may be a string of a digit a row: value = digit − 1 in these two, the digit in the others. */
const OFFSET_ONE = ["repo", "slaMilestone"];
const DIGIT_COLUMNS = [
  ...OFFSET_ONE,
  "status",
  "severity",
  "closed",
  "url",
  "link",
  "slaBreach",
  "occurrence",
];
/** The columns `colPack` holds (in threat-block.ts' order), and the binary ones' cells: `f64` (NaN: none) or `i32` (-1: none). */
export const PACKED_COLUMNS = ["issueId", "slaSince", "slaDue", "slaBreach", "slaMilestone", "occurrence"];
const BINARY = { issueId: "f64", slaSince: "f64", slaDue: "i32" } as const;
const PackHead = z.object({
  columns: z.record(z.string(), z.unknown()),
  binary: z.array(
    z.tuple([z.enum(["issueId", "slaSince", "slaDue"]), z.enum(["f64", "i32"]), z.int().nonnegative()]),
  ),
});

/** A column's cells: an array, or (where `digits` allows) a string of digits read as numbers. */
export function cellsOf(name: string, column: unknown, count: number, digits: boolean): unknown[] {
  let cells = column;
  if (digits && typeof column === "string" && DIGIT_COLUMNS.includes(name)) {
    need(/^[0-9]*$/.test(column), `column ${name} holds a character that is not a digit`);
    const zero = OFFSET_ONE.includes(name) ? 49 : 48;
    cells = Array.from(column, (digit) => digit.charCodeAt(0) - zero);
  }
  need(Array.isArray(cells), `column ${name} is not an array`);
  need(cells.length === count, `column ${name} has ${cells.length} cells, not ${count}`);
  return cells;
}

/**
 * A colPack's columns by name: one line of JSON, `{"columns": {name: column}, "binary": [[name,
 * type, rows], ...]}`, then the binary columns' cells, little-endian, one column after the other.
 */
export function packedColumns(pack: string): Record<string, unknown> {
  const bytes = unpack(pack, "colPack");
  const newline = bytes.indexOf(10);
  need(newline >= 0, "colPack is not columns");
  const head = parseWith(PackHead, parseJson(bytes.subarray(0, newline), "colPack"));
  const out: Record<string, unknown> = { ...head.columns };
  let offset = newline + 1;
  for (const [name, type, rows] of head.binary) {
    need(type === BINARY[name] && !Object.hasOwn(out, name), `colPack's binary column ${name} is malformed`);
    const width = type === "f64" ? 8 : 4;
    need(offset + width * rows <= bytes.length, `colPack's column ${name} is short`);
    const start = offset;
    out[name] = Array.from({ length: rows }, (_, i) => {
      const v = type === "f64" ? bytes.readDoubleLE(start + 8 * i) : bytes.readInt32LE(start + 4 * i);
      return (type === "f64" && Number.isNaN(v)) || (type === "i32" && v === -1) ? null : v;
    });
    offset += width * rows;
  }
  need(offset === bytes.length, "colPack holds bytes past its columns");
  for (const name of Object.keys(out))
    need(PACKED_COLUMNS.includes(name), `colPack holds an unknown column ${JSON.stringify(name)}`);
  return out;
}

/**
 * One feature's slice column, `<form>:<bytes>:<crc>:<base64>` (CRC-32 of the deflated bytes):
 * form `u8` inflates to the row count (uint32 LE), each row's cell length in UTF-16 units (int32
 * LE, -1: no slice), then the cells' text in UTF-8; form `json` to the JSON array of cells.
 */
export function sliceCells(name: string, pack: string, count: number): (string | null)[] {
  const what = `slice column ${JSON.stringify(name)}`;
  const [form = "", bytesText = "", crc = "", base64 = ""] = pack.split(":");
  const bytes = Number(bytesText);
  need((form === "u8" || form === "json") && isInt(bytes, 0, Infinity), `${what}'s header is malformed`);
  const deflated = Buffer.from(base64, "base64");
  need(crcHex(deflated) === crc, `${what} does not match its CRC-32`);
  const raw = inflate(deflated, bytes, what);
  if (form === "json") {
    const cells = parseJson(raw, what);
    const fit = Array.isArray(cells) && cells.length === count;
    need(
      fit && cells.every((cell) => cell === null || typeof cell === "string"),
      `${what} is not ${count} cells`,
    );
    return cells as (string | null)[];
  }
  need(raw.length >= 4 + 4 * count && raw.readUInt32LE(0) === count, `${what} does not hold ${count} rows`);
  const text = raw.toString("utf8", 4 + 4 * count);
  let end = 0;
  const cells = Array.from({ length: count }, (_, i) => {
    const length = raw.readInt32LE(4 + 4 * i);
    need(length >= -1, `${what}: row ${i}'s length is ${length}`);
    if (length < 0) return null;
    end += length;
    return text.slice(end - length, end);
  });
  need(end === text.length, `${what}: its cells hold ${text.length} characters, not ${end}`);
  return cells;
}
