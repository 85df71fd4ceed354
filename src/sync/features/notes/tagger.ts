import type { SliceTagger } from "../../records/slice-tags.js";
import { parseSlice } from "./slice.js";

/** Tag bit: the section was written (the slice holds its hash). */
export const WRITTEN = 1;
/** Tag bit: reads of the threat carry no note. */
export const ABSENT = 2;

/**
 * Tag bit: the analyst's changed text waits for its comment on the issue (`notes.to_github`). No
 * slice held it before the bit was counted, so digits kept under this id are still right.
 */
export const COMMENT_DUE = 4;

/**
 * What `status` counts of a notes slice, as a digit (src/sync/records/slice-tags.ts):
 * WRITTEN | ABSENT | COMMENT_DUE. A slice that does not parse counts as none (0), as it reads.
 */
export const notesTagger: SliceTagger = {
  id: "notes/1",
  tag: (text) => {
    // The common slice, the hash alone, without a parse.
    if (!text.startsWith("{")) return WRITTEN;
    const slice = parseSlice(text);
    return (
      (slice.w !== undefined ? WRITTEN : 0) |
      (slice.n === 1 ? ABSENT : 0) |
      (slice.d !== undefined ? COMMENT_DUE : 0)
    );
  },
};
