/**
 * Text for a terminal, not for GitHub. The renderer makes platform text inert for GitHub (zero-width
 * spaces after `@` and `#`, backslash-escaped Markdown, HTML entities: src/sync/render/escape.ts);
 * on a terminal that escaping only corrupts what an operator copies (a hostname with a U+200B in it
 * resolves nowhere). Control characters go too: they could move the cursor or recolour the screen.
 */

// Zero-width and invisible formatting characters: ZWSP, ZWNJ, ZWJ, word joiner, BOM, bidi controls.
const INVISIBLE = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/g;
const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

export function terminalText(text: string): string {
  return text
    .replace(INVISIBLE, "")
    .replace(/\\([\\`*_[\]|~$])/g, "$1")
    .replace(/&(amp|lt|gt|quot|apos);/g, (whole, name: string) => ENTITIES[name] ?? whole)
    .replace(CONTROL, " ");
}

/** Cuts to `width` characters (code points), marking the cut with an ellipsis. */
export function fit(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, width - 1).join("")}…`;
}
