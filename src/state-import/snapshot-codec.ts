import { z } from "zod";
import { ParsedJson, ParsedRows, type Json } from "./journal-line.js";
import { newRows, type Rows } from "./rows.js";
import { RowError, ThreatColumnsDoc } from "./snapshot-threat-codec.js";
import { packText, unpackRows } from "./threat-compact.js";
import { packCrc, PackedRows } from "./packed-rows.js";
import type { SliceTaggers } from "./slice-tags.js";
import { COMPACT_CODEC, PACKED_CODEC, SLICES_CODEC, ThreatTable, WORKFLOW_CODEC } from "./threat-table.js";

/**
 * The newest version of the journaled store's files (snapshot and journal lines) this code reads.
 * A snapshot is written as 3 unless a threat has an SLA or a later occurrence (codec `threat-5`):
 * then 4; or a plug-in feature's slice (codec `threat-6`): then 5. Since 6 such a snapshot's
 * threats are codec `threat-7` (the SLA times small, the slices compressed), written as 6; the
 * older versions are read; since 7 they are codec `threat-8` (the features' columns packed
 * together, each slice column on its own, read when first used). So a threatbridge that knows
 * only an older version says it is too old instead of calling the file corrupt (or dropping every
 * SLA or slice).
 */
export const STORE_FORMAT_VERSION = 7;
const BASE_FORMAT_VERSION = 3;
const WORKFLOW_FORMAT_VERSION = 4;
const SLICES_FORMAT_VERSION = 5;
/** Codec threat-7 (the SLA times small, the slices compressed), and the raw-pack groups. */
const COMPACT_FORMAT_VERSION = 6;
/** The version a snapshot is written as, by its threats' codec (the base when not listed). */
const VERSION_OF_CODEC: Readonly<Record<string, number>> = {
  [WORKFLOW_CODEC]: WORKFLOW_FORMAT_VERSION,
  [SLICES_CODEC]: SLICES_FORMAT_VERSION,
  [COMPACT_CODEC]: COMPACT_FORMAT_VERSION,
  [PACKED_CODEC]: STORE_FORMAT_VERSION,
};

export const STORE_FORMAT = "threatbridge-store";

/**
 * The store's content at one commit: `seq` is the last commit it includes, `gen` the journal
 * generation that continues it (the snapshot holds every generation before `gen`).
 */
export interface StoreView {
  gen: number;
  seq: number;
  meta: Map<string, Json>;
  collections: Map<string, Rows>;
}

export function emptyView(): StoreView {
  return { gen: 0, seq: 0, meta: new Map(), collections: new Map() };
}

const RawRows = z.object({ codec: z.literal("raw"), rows: ParsedRows });
/** Since version 6: the rows' JSON text deflated, `<bytes>:<base64>` (threat-compact.ts `packText`). */
const PackedRowsDoc = z.object({
  codec: z.literal("raw-pack"),
  pack: z.string(),
  /**
   * Since version 7: the CRC-32 of the pack's compressed bytes, checked at load; the rows are then
   * unpacked when first read (packed-rows.ts). Without it (version 6) they are unpacked at load.
   */
  crc: z.string().optional(),
});

/**
 * The collections written as `raw-pack` when not empty: the groups (a feature's: a state without
 * grouping stays readable by an older threatbridge), whose records repeat their keys, members'
 * ids (in `attached` again) and titles. 1.9 MB at 100,000 threats, 10 % of them in groups.
 */
const PACKED_COLLECTIONS: ReadonlySet<string> = new Set(["groups"]);

const SnapshotDoc = z.object({
  format: z.literal(STORE_FORMAT),
  // 2 wrote the threats' asset ids as strings (codec threat-3); both are read.
  version: z.union([
    z.literal(2),
    z.literal(BASE_FORMAT_VERSION),
    z.literal(WORKFLOW_FORMAT_VERSION),
    z.literal(SLICES_FORMAT_VERSION),
    z.literal(COMPACT_FORMAT_VERSION),
    z.literal(STORE_FORMAT_VERSION),
  ]),
  gen: z.int().positive(),
  seq: z.int().nonnegative(),
  meta: z.record(z.string(), ParsedJson),
  collections: z.record(
    z.string(),
    z.discriminatedUnion("codec", [RawRows, PackedRowsDoc, ThreatColumnsDoc]),
  ),
});

/** Rows are encoded this many at a time between yields to the event loop. */
const CHUNK = 2_000;

/**
 * Encodes a view as the parts of one JSON document, yielding (`pause`) between chunks of rows so
 * that a large snapshot does not hold the event loop for its whole serialization.
 */
export async function encodeSnapshot(
  view: StoreView,
  pause: () => Promise<void>,
  taggers?: SliceTaggers,
): Promise<string[]> {
  const header = (version: number): string =>
    `{"format":${JSON.stringify(STORE_FORMAT)},"version":${version},"gen":${view.gen},"seq":${view.seq},`;
  const parts: string[] = [
    header(BASE_FORMAT_VERSION),
    `"meta":${JSON.stringify(Object.fromEntries(view.meta))},"collections":{`,
  ];
  let firstCollection = true;
  let version = BASE_FORMAT_VERSION;
  for (const [name, rows] of view.collections) {
    parts.push(`${firstCollection ? "" : ","}${JSON.stringify(name)}:{`);
    firstCollection = false;
    let count = 0;
    if (rows instanceof ThreatTable) {
      const members = await rows.members(CHUNK * 5, pause, taggers);
      const codec = /^"codec":"(.*)"$/.exec(members[0] ?? "")?.[1] ?? "";
      version = Math.max(version, VERSION_OF_CODEC[codec] ?? BASE_FORMAT_VERSION);
      parts[0] = header(version);
      parts.push(...members, "}");
      continue;
    }
    if (rows instanceof PackedRows && rows.unread !== null) {
      // Never read since it was loaded, so never changed: the same pack again.
      parts.push(`"codec":"raw-pack","crc":"${packCrc(rows.unread)}","pack":"${rows.unread}"}`);
      version = Math.max(version, COMPACT_FORMAT_VERSION);
      parts[0] = header(version);
      continue;
    }
    const text: string[] = [];
    let chunk: string[] = [];
    for (const [key, value] of rows.entries()) {
      chunk.push(JSON.stringify([key, value]));
      if (++count % CHUNK === 0) {
        text.push((count > CHUNK ? "," : "") + chunk.join(","));
        chunk = [];
        await pause();
      }
    }
    if (chunk.length > 0) text.push((count > chunk.length ? "," : "") + chunk.join(","));
    if (PACKED_COLLECTIONS.has(name) && count > 0) {
      const pack = await packText(`[${text.join("")}]`);
      parts.push(`"codec":"raw-pack","crc":"${packCrc(pack)}","pack":"${pack}"}`);
      version = Math.max(version, COMPACT_FORMAT_VERSION);
      parts[0] = header(version);
      continue;
    }
    parts.push(`"codec":"raw","rows":[`, ...text, "]}");
  }
  parts.push("}}");
  return parts.map(asciiOnly);
}

const NON_ASCII = /[\u0080-\uffff]/g;

/**
 * JSON text with every character past ASCII written as its `\uXXXX` escape (the same JSON value):
 * a snapshot is then ASCII, which a reader takes in as latin1, kept outside V8's heap (store-fs.ts).
 */
function asciiOnly(json: string): string {
  return json.replace(NON_ASCII, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export class SnapshotFormatError extends Error {
  readonly tooNew: boolean;
  constructor(message: string, tooNew = false, options?: { cause: unknown }) {
    super(message, options);
    this.tooNew = tooNew;
  }
}

/** Decodes a parsed snapshot document; throws SnapshotFormatError when it is not one. */
export function decodeSnapshot(raw: unknown): StoreView {
  // Once a load: jitless, as the config's parse (config/load.ts), so that zod compiles no fast parser.
  const parsed = SnapshotDoc.safeParse(raw, { jitless: true });
  if (!parsed.success) {
    const version = typeof raw === "object" && raw !== null && "version" in raw ? raw.version : undefined;
    if (typeof version === "number" && version > STORE_FORMAT_VERSION)
      throw new SnapshotFormatError(`store version ${version} is newer than ${STORE_FORMAT_VERSION}`, true);
    const first = parsed.error.issues[0];
    throw new SnapshotFormatError(`${first?.path.join(".") ?? ""}: ${first?.message ?? "invalid"}`, false, {
      cause: parsed.error,
    });
  }
  const doc = parsed.data;
  const collections = new Map<string, Rows>();
  for (const [name, block] of Object.entries(doc.collections)) {
    let rows = newRows(name);
    try {
      if (block.codec === "raw") for (const [key, value] of block.rows) rows.set(key, value);
      else if (block.codec === "raw-pack" && block.crc !== undefined)
        rows = PackedRows.load(name, block.pack, block.crc);
      else if (block.codec === "raw-pack")
        for (const [key, value] of unpackRows(block.pack, "pack")) rows.set(key, value);
      else rows = ThreatTable.decode(block);
    } catch (err) {
      if (err instanceof RowError)
        throw new SnapshotFormatError(`collection ${name}: ${err.message}`, false, { cause: err });
      throw err;
    }
    collections.set(name, rows);
  }
  return { gen: doc.gen, seq: doc.seq, meta: new Map(Object.entries(doc.meta)), collections };
}
