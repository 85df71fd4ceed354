import { crc32, inflateSync } from "node:zlib";
import { z } from "zod";

/** A value of the old store's files: plain JSON, as JSON.parse gave it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** What a parse of the store's own text gave: JSON by construction, checked where it is used. */
export const ParsedJson = z.custom<Json>((value) => value !== undefined, "expected a value");
/** A collection's rows as `[key, value]` pairs. */
export const KeyedRows = z.custom<[string, Json][]>(
  (value) =>
    Array.isArray(value) &&
    value.every((row) => Array.isArray(row) && row.length === 2 && typeof row[0] === "string"),
  "expected rows of [key, value]",
);

/** Why a snapshot does not decode (the caller names the file and tells the operator what to do). */
export class FormatError extends Error {}

/** `value` as `schema` parses it (once a load: jitless, so that zod compiles no fast parser). */
export function parseWith<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value, { jitless: true });
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new FormatError(`${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`);
}

export function need(ok: boolean, what: string): asserts ok {
  if (!ok) throw new FormatError(what);
}

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export const isInt = (value: unknown, min: number, max: number): value is number =>
  typeof value === "number" && Number.isInteger(value) && value >= min && value <= max;

export function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The CRC-32 (hex, 8 digits) the old store wrote beside a pack and at the head of a journal line. */
export function crcHex(data: Buffer | string): string {
  return crc32(data).toString(16).padStart(8, "0");
}

/** Inflated zlib bytes; FormatError naming `what` when they do not inflate, or not to `bytes`. */
export function inflate(deflated: Buffer, bytes: number, what: string): Buffer {
  let out: Buffer;
  try {
    out = inflateSync(deflated);
  } catch (err) {
    throw new FormatError(`${what} does not decode (${describe(err)})`);
  }
  need(out.length === bytes, `${what} holds ${out.length} bytes, not ${bytes}`);
  return out;
}

/** The bytes of a pack `<bytes>:<base64 of zlib's deflate>` (a colPack, a rawPack, a raw-pack). */
export function unpack(pack: string, what: string): Buffer {
  const colon = pack.indexOf(":");
  const bytes = Number(pack.slice(0, colon));
  need(colon >= 1 && Number.isSafeInteger(bytes) && bytes >= 0, `${what} does not decode (no length)`);
  return inflate(Buffer.from(pack.slice(colon + 1), "base64"), bytes, what);
}

/** The JSON text of `bytes` (UTF-8) parsed; FormatError naming `what` when it is not JSON. */
export function parseJson(bytes: Buffer, what: string): unknown {
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch (err) {
    throw new FormatError(`${what} is not JSON (${describe(err)})`);
  }
}

/** The `[key, value]` rows packed in `pack`. */
export function unpackRows(pack: string, what: string): [string, Json][] {
  const rows = KeyedRows.safeParse(parseJson(unpack(pack, what), what));
  need(rows.success, `${what}: expected rows of [key, value]`);
  return rows.data;
}
