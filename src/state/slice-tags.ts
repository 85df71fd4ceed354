import { packBytes, unpackBytes } from "./threat-compact.js";
import { RowError } from "./snapshot-threat-codec.js";

/**
 * A feature's summary of one slice (ThreatRecord.slices) as a digit, 0–9: what `status` counts of
 * it (notes: whether the section was written, whether reads carry no note; project: whether an
 * item is recorded). The store keeps the digits beside a slice column it packs (codec `threat-8`'s
 * `sliceTags`), so that counting a feature's slices needs no inflate of its column: at 100,000
 * threats with notes and project items, `status` inflated and scanned both columns (~50 ms of CPU,
 * ~7 MB of text and a string or two a slice) to count them.
 *
 * `id` names what `tag` means: digits kept under another id are not used (the slices are read
 * instead), so a tag whose meaning changes must get a new id.
 */
export interface SliceTagger {
  readonly id: string;
  tag(slice: string): number;
}

/** The taggers by feature name (the slice's name in ThreatRecord.slices). */
export type SliceTaggers = ReadonlyMap<string, SliceTagger>;

/** A row with no slice of that feature, in a column of tags. */
export const NO_SLICE = -1;
/** How tags are counted: index = tag. */
export const TAG_COUNT = 10;
const NONE_CHAR = 0x2d; // "-"
const ZERO = 0x30;

/** `tagger.tag(slice)`, checked: a tag that is not one digit is a bug in its feature. */
export function tagOf(tagger: SliceTagger, slice: string): number {
  const tag = tagger.tag(slice);
  if (!(Number.isInteger(tag) && tag >= 0 && tag < TAG_COUNT))
    throw new Error(`slice tagger ${tagger.id} gave ${tag}, not a digit`);
  return tag;
}

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
