import { REVISION_LINE_RESERVE } from "../../shared/index.js";

/** GitHub's limits, in UTF-16 code units (stricter than GitHub's count, so always accepted). */
export const MAX_TITLE_LENGTH = 256;
export const MAX_BODY_LENGTH = 65_536;
export const MAX_LABEL_LENGTH = 50;
// GitHub's limit applies to what is sent, so a rendered body leaves room for the revision line.
export { REVISION_LINE_RESERVE };
/** The longest body the renderer produces: with its revision line it is within MAX_BODY_LENGTH. */
export const MAX_RENDERED_BODY_LENGTH = MAX_BODY_LENGTH - REVISION_LINE_RESERVE;
