import { z } from "zod";
import { StateError } from "../state/errors.js";
import {
  crcHex,
  describe,
  FormatError,
  KeyedRows,
  need,
  ParsedJson,
  parseWith,
  unpackRows,
  type Json,
} from "./packs.js";
import { decodeThreatBlock } from "./threat-block.js";
import { ThreatRows } from "./threat-rows.js";

/**
 * The snapshot of the store before SQLite: one JSON document, `{"format": "threatbridge-store",
 * "version": 7, "gen", "seq", "meta", "collections"}`. `seq` is the last commit it holds, `gen` the
 * journal generation that continues it. A collection is `raw` (`rows`: `[key, value]` pairs),
 * `raw-pack` (those rows' JSON text deflated, with the CRC-32 of the deflated bytes: the groups)
 * or, for the threats, `threat-8` (threat-block.ts).
 */

export const STORE_FORMAT = "threatbridge-store";
export const STORE_VERSION = 7;

const LEFT_UNTOUCHED =
  "it was left untouched: restore it from a backup, or move it aside and run `threatbridge reconcile` to rebuild the mapping";

/** A collection's rows; the `threats`' as the old store's table held them (threat-rows.ts). */
export type Rows = Map<string, Json> | ThreatRows;

/** The store's content at commit `seq`, continued by the journals from generation `gen` on. */
export interface StoreView {
  gen: number;
  seq: number;
  meta: Map<string, Json>;
  collections: Map<string, Rows>;
}

export function newRows(collection: string): Rows {
  return collection === "threats" ? new ThreatRows() : new Map<string, Json>();
}

const Block = z.looseObject({ codec: z.enum(["raw", "raw-pack", "threat-8"]) });
const RawBlock = z.object({ codec: z.literal("raw"), rows: KeyedRows });
const PackBlock = z.object({ codec: z.literal("raw-pack"), pack: z.string(), crc: z.string() });
const Snapshot = z.object({
  format: z.literal(STORE_FORMAT),
  version: z.literal(STORE_VERSION),
  gen: z.int().positive(),
  seq: z.int().nonnegative(),
  meta: z.record(z.string(), ParsedJson),
  collections: z.record(z.string(), Block),
});

function decodeCollection(name: string, block: z.infer<typeof Block>): Rows {
  if (block.codec === "threat-8") return decodeThreatBlock(block);
  if (block.codec === "raw") {
    const rows = newRows(name);
    for (const [key, value] of parseWith(RawBlock, block).rows) rows.set(key, value);
    return rows;
  }
  const { pack, crc } = parseWith(PackBlock, block);
  const deflated = Buffer.from(pack.slice(pack.indexOf(":") + 1), "base64");
  need(crcHex(deflated) === crc, "its pack does not match its CRC-32");
  return new Map(unpackRows(pack, "pack"));
}

/** The snapshot in `text` (the file `path`'s); a StateError when it does not decode. */
export function decodeSnapshot(text: string, path: string): StoreView {
  const refuse = (what: string, err: unknown): StateError =>
    new StateError("state_corrupt", `state file ${path} ${what} (${describe(err)}); ${LEFT_UNTOUCHED}`, {
      cause: err,
      file: path,
    });
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw refuse("is not valid JSON", err);
  }
  try {
    const doc = parseWith(Snapshot, raw);
    const collections = new Map<string, Rows>();
    for (const [name, block] of Object.entries(doc.collections)) {
      try {
        collections.set(name, decodeCollection(name, block));
      } catch (err) {
        throw err instanceof FormatError ? new FormatError(`collection ${name}: ${err.message}`) : err;
      }
    }
    return { gen: doc.gen, seq: doc.seq, meta: new Map(Object.entries(doc.meta)), collections };
  } catch (err) {
    if (err instanceof FormatError) throw refuse("is not a valid snapshot", err);
    throw err;
  }
}
