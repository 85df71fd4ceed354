import { packBytes, unpackBytes } from "./threat-compact.js";
import { RowError } from "./snapshot-threat-codec.js";

/**
 * A feature's summary of one slice (ThreatRecord.slices) as a digit, 0–9: what `status` counts of
 * it (notes: whether the section was written, whether reads carry no note; project: whether an
 * item is recorded). The store keeps the digits beside a slice column it packs (codec `threat-8`'s
 * `sliceTags`), so that counting a feature's slices needs no inflate of its column: at 100,000
 * threats with notes and project items, `status` inflated and scanned both columns (~50 ms of CPU
 * and as much again in garbage collection) to count them.
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
 * Adler-32 and length checked as it loads), one a row, `-` where the row has no slice.
 */
export async function packTags(
  tagger: SliceTagger,
  cells: readonly (string | null)[],
): Promise<[string, string]> {
  const bytes = Buffer.allocUnsafe(cells.length);
  cells.forEach((cell, i) => {
    bytes[i] = cell === null ? NONE_CHAR : ZERO + tagOf(tagger, cell);
  });
  return [tagger.id, await packBytes(bytes)];
}

/** A column's tags as loaded: `tags[i]` row i's tag of the block, NO_SLICE where it has none. */
export interface LoadedTags {
  readonly id: string;
  readonly tags: Int8Array;
}

/**
 * The tags of a `sliceTags` entry for a block of `count` rows; RowError when they do not decode
 * (checked at open, as the slice packs' CRC-32: a damaged file is refused then, not when counted).
 */
export function unpackTags(name: string, entry: readonly [string, string], count: number): LoadedTags {
  const what = `slice tags of ${JSON.stringify(name)}`;
  const bytes = unpackBytes(entry[1], what);
  if (bytes.length !== count) throw new RowError(`${what} hold ${bytes.length} rows, not ${count}`);
  const tags = new Int8Array(count);
  for (let i = 0; i < count; i++) {
    const b = bytes[i] ?? 0;
    if (b === NONE_CHAR) tags[i] = NO_SLICE;
    else if (b >= ZERO && b < ZERO + TAG_COUNT) tags[i] = b - ZERO;
    else throw new RowError(`${what} hold a character that is neither a digit nor "-"`);
  }
  return { id: entry[0], tags };
}
