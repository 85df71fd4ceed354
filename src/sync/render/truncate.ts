/**
 * Cutting escaped text to a length without breaking what the escaping built: a surrogate pair,
 * a named entity (`&amp;`), a backslash escape, or a `@`/`#` whose zero-width space was cut off.
 */
const ELLIPSIS = "…";
/** The visible note after a cut Markdown block. */
export const TRUNCATED_NOTE = "\n\n_(truncated)_";

/** The longest prefix of `text` of at most `max` code units that is safe to end on. */
export function safePrefix(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, Math.max(0, max));
  // Drop a high surrogate whose pair was cut off.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  // Drop an entity cut in the middle ("&am").
  cut = cut.replace(/&[a-zA-Z]*$/, "");
  // An odd run of trailing backslashes would escape whatever we append next.
  const slashes = /\\+$/.exec(cut)?.[0].length ?? 0;
  if (slashes % 2 === 1) cut = cut.slice(0, -1);
  // `@` and `#` must keep the zero-width space that follows them (see escape.ts).
  while (/[@#]$/.test(cut)) cut = cut.slice(0, -1);
  return cut;
}

/** `text` within `max` code units, ending with an ellipsis when it was cut. */
export function truncateWithEllipsis(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${safePrefix(text, max - ELLIPSIS.length).trimEnd()}${ELLIPSIS}`;
}

/** A raw string cut before escaping so that huge inputs cost little; escaping only grows text. */
export function precut(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  const prefix = /[\uD800-\uDBFF]$/.test(text.slice(0, max)) ? text.slice(0, max - 1) : text.slice(0, max);
  return { text: prefix, cut: true };
}

/** A Markdown block within `max` code units, ending with a visible "(truncated)" note when cut. */
export function truncateBlock(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${safePrefix(text, Math.max(0, max - TRUNCATED_NOTE.length)).trimEnd()}${TRUNCATED_NOTE}`;
}
