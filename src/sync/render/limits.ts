/**
 * GitHub's limits, counted in UTF-16 code units (stricter than GitHub's character count, so a
 * text within them is always accepted).
 */
export const MAX_TITLE_LENGTH = 256;
export const MAX_BODY_LENGTH = 65_536;
export const MAX_LABEL_LENGTH = 50;
