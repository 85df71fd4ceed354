/**
 * A feature's summary of one slice (ThreatRecord.slices) as a digit, 0–9: what `status` counts of
 * it (notes: whether the section was written, whether reads carry no note; project: whether an
 * item is recorded). `ThreatRecords.tallySlices` counts a feature's slices by their tags.
 * `id` names what `tag` means: a tag whose meaning changes gets a new id.
 */
export interface SliceTagger {
  readonly id: string;
  tag(slice: string): number;
}

/** How tags are counted: index = tag. */
export const TAG_COUNT = 10;

/** `tagger.tag(slice)`, checked: a tag that is not one digit is a bug in its feature. */
export function tagOf(tagger: SliceTagger, slice: string): number {
  const tag = tagger.tag(slice);
  if (!(Number.isInteger(tag) && tag >= 0 && tag < TAG_COUNT))
    throw new Error(`slice tagger ${tagger.id} gave ${tag}, not a digit`);
  return tag;
}
