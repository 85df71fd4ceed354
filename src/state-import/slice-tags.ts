import { packBytes, unpackBytes } from "./threat-compact.js";
import { RowError } from "./snapshot-threat-codec.js";
import { TAG_COUNT, tagOf, type SliceTagger } from "../state/slice-tags.js";

export { TAG_COUNT, tagOf, type SliceTagger };
/** The taggers by feature name (the slice's name in ThreatRecord.slices). */
export type SliceTaggers = ReadonlyMap<string, SliceTagger>;
/** A row with no slice of that feature, in a column of tags. */
export const NO_SLICE = -1;

const NONE_CHAR = 0x2d; // "-"
const ZERO = 0x30;

/**
 * The `sliceTags` entry of one column: `[id, pack]`, `pack` the deflated digits (packBytes: its
 * Adler-32 and length checked as it loads) of `tagOfRow` over `rows`, one a row, `-` where the row
 * has no slice. `tagOfRow` reads the tags the last snapshot kept where it can (SliceColumns.tagReader):
 * a compaction tags only the rows changed since, as a notes slice with comments takes a schema
 * parse (~4 µs: 0.4 s at 100,000). Yields (`pause`) every `chunk` rows.
 */
export async function packTags(
  id: string,
  rows: Int32Array,
  tagOfRow: (row: number) => number,
  pause: () => Promise<void>,
  chunk: number,
): Promise<[string, string]> {
  const bytes = Buffer.allocUnsafe(rows.length);
  for (let start = 0; start < rows.length; start += chunk) {
    const end = Math.min(rows.length, start + chunk);
    for (let i = start; i < end; i++) {
      const tag = tagOfRow(rows[i] ?? 0);
      bytes[i] = tag < 0 ? NONE_CHAR : ZERO + tag;
    }
    await pause();
  }
  return [id, await packBytes(bytes)];
}

/**
 * A column's tags as loaded: unpacked when first counted (an idle `sync` counts none). Derived
 * data: tags that do not decode are not used (the slices, checked at open, are read instead).
 */
export class LoadedTags {
  private pack: string | null;
  private tags: Int8Array | null = null;

  constructor(
    readonly id: string,
    pack: string,
    private readonly count: number,
  ) {
    this.pack = pack;
  }

  /** `tags[i]`: row i's tag of the block, NO_SLICE where it has none; null when they do not decode. */
  read(): Int8Array | null {
    const pack = this.pack;
    if (pack !== null) {
      this.pack = null;
      this.tags = unpackTags(pack, this.count);
    }
    return this.tags;
  }
}

/** The digits of a pack as tags, or null when they do not decode (inflate, length, a character). */
function unpackTags(pack: string, count: number): Int8Array | null {
  let bytes: Buffer;
  try {
    bytes = unpackBytes(pack, "slice tags");
  } catch (err) {
    if (err instanceof RowError) return null;
    throw err;
  }
  if (bytes.length !== count) return null;
  const tags = new Int8Array(count);
  for (let i = 0; i < count; i++) {
    const b = bytes[i] ?? 0;
    if (b === NONE_CHAR) tags[i] = NO_SLICE;
    else if (b >= ZERO && b < ZERO + TAG_COUNT) tags[i] = b - ZERO;
    else return null;
  }
  return tags;
}
