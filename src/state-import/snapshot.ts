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
 * "version", "gen", "seq", "meta", "collections"}`. `seq` is the last commit it holds, `gen` the
 * journal generation that continues it. A collection is `raw` (`rows`: `[key, value]` pairs),
 * `raw-pack` (those rows' JSON text deflated, with the CRC-32 of the deflated bytes: the groups)
 * or, for the threats, `threat-4` or `threat-8` (threat-block.ts).
 *
 * The previous release writes three versions, by what the state holds: 7 when a threat has
 * workflow data (an SLA, an occurrence, a slice: codec `threat-8`), else 6 when a collection is a
 * `raw-pack` (the groups), else 3; the threats of 3 and 6 are codec `threat-4`. Those are read.
 * Every other version, and version 6 as the releases before it wrote it (codec `threat-7`, a
 * `raw-pack` without CRC), is `state_too_old`: the previous release reads them and writes one of
 * these. A snapshot whose version and content disagree otherwise is damaged: `state_corrupt`.
 */

export const STORE_FORMAT = "threatbridge-store";
/** The versions read, each with the codec its threats are written in. */
export const THREATS_CODEC_OF_VERSION: ReadonlyMap<number, string> = new Map([
  [3, "threat-4"],
  [6, "threat-4"],
  [7, "threat-8"],
]);
/** The first version whose collections may be `raw-pack`. */
const PACK_VERSION = 6;

/** The refusal of a state the previous release must convert first (`format` names what it is). */
export function tooOld(path: string, format: string): StateError {
  return new StateError(
    "state_too_old",
    `state file ${path} is of an older format (${format}) that this threatbridge no longer reads: ` +
      "run the previous release once (it converts the file), then this one",
    { file: path },
  );
}

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

const Block = z.looseObject({ codec: z.string() });
const RawBlock = z.object({ codec: z.literal("raw"), rows: KeyedRows });
const PackBlock = z.object({ codec: z.literal("raw-pack"), pack: z.string(), crc: z.string() });
const Snapshot = z.object({
  format: z.literal(STORE_FORMAT),
  version: z.int().refine((version) => THREATS_CODEC_OF_VERSION.has(version), "a store version not read"),
  gen: z.int().positive(),
  seq: z.int().nonnegative(),
  meta: z.record(z.string(), ParsedJson),
  collections: z.record(z.string(), Block),
});

/**
 * Refuses a collection's codec that store `version` does not hold: a FormatError (damage), or
 * state_too_old when it is version 6 as the releases before the previous one wrote it.
 */
function checkCodec(version: number, name: string, block: z.infer<typeof Block>, path: string): void {
  const { codec } = block;
  if (version === PACK_VERSION && (codec === "threat-7" || (codec === "raw-pack" && !("crc" in block))))
    throw tooOld(
      path,
      `store version 6 with ${codec === "raw-pack" ? "a raw-pack without CRC-32" : "codec threat-7"}`,
    );
  const threats = THREATS_CODEC_OF_VERSION.get(version);
  const fits = codec === "raw" || (codec === "raw-pack" ? version >= PACK_VERSION : codec === threats);
  need(fits, `collections.${name}.codec: store version ${version} holds no codec ${JSON.stringify(codec)}`);
}

function decodeCollection(name: string, block: z.infer<typeof Block>): Rows {
  if (block.codec === "threat-4" || block.codec === "threat-8") return decodeThreatBlock(block);
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
      checkCodec(doc.version, name, block, path);
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
