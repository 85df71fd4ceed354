/**
 * GitHub's limits, counted in UTF-16 code units (stricter than GitHub's character count, so a
 * text within them is always accepted).
 */
export const MAX_TITLE_LENGTH = 256;
export const MAX_BODY_LENGTH = 65_536;
export const MAX_LABEL_LENGTH = 50;
/**
 * Room kept for the revision line appended to every body sent (`src/sync/render/revision.ts`:
 * `\n<!-- threatbridge:rev=<hex hash, at most 64> -->\n`). GitHub's limit applies to what is sent, so a
 * rendered body leaves this much free.
 */
export const REVISION_LINE_RESERVE = "\n<!-- threatbridge:rev= -->\n".length + 64;
/** The longest body the renderer produces: with its revision line it is within MAX_BODY_LENGTH. */
export const MAX_RENDERED_BODY_LENGTH = MAX_BODY_LENGTH - REVISION_LINE_RESERVE;
