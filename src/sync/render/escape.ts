/**
 * Inert rendering of platform text (contract, "Conventions": text from the platform cannot
 * @mention anyone, cross-reference an issue or inject HTML).
 *
 * GitHub links mentions and references in the text after Markdown is parsed, so HTML entities
 * (`&#64;`) do not stop them: a zero-width space (U+200B) after `@` and `#` does. This is what
 * Renovate and Dependabot do for release notes; it is invisible to readers and breaks the match.
 */

export const ZWSP = "\u200B";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
// C0 and C1 controls other than tab and line breaks; GitHub rejects or mangles them.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;
const LINE_BREAK = /\r\n|[\r\n\u2028\u2029\u0085]/g;
/**
 * Bidirectional controls: embeddings and overrides (U+202A-U+202E), isolates (U+2066-U+2069) and
 * the marks (U+200E, U+200F, U+061C). An override makes `Invoice \u202Egnp.exe` show as
 * "Invoice exe.png"; removed, the text shows in its stored order.
 */
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;

/** Text without bidirectional controls, so that it shows the characters in the order they are stored. */
export function stripBidi(text: string): string {
  return text.replace(BIDI_CONTROL, "");
}

/** Well-formed UTF-16 without control characters (tabs become spaces) or bidi controls. */
function clean(text: string): string {
  return stripBidi(text.replace(LONE_SURROGATE, "\uFFFD").replace(CONTROL, "").replace(/\t/g, " "));
}

const HTML_ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};

// Named entities only: a numeric one (`&#35;`) would itself read as `#` followed by a digit.
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ENTITIES[c] ?? c);
}

/**
 * Markdown punctuation that could turn platform text into links, images, code, emphasis, math,
 * strike-through or table cells. `(`, `)` and `!` are harmless once `[` and `]` are escaped.
 */
function escapeMarkdownPunctuation(text: string): string {
  return text.replace(/[\\`*_[\]|~$]/g, (c) => `\\${c}`);
}

/**
 * Breaks what GitHub would link: mentions (`@user`, `@org/team`), issue references (`#12`,
 * `owner/repo#12`, `GH-12`), autolinked URLs (`https://…/issues/12` is a cross-reference too,
 * and `www.`), and text that a marker parser could take for ours (`threatbridge:threat=`).
 */
function breakReferences(text: string): string {
  return text
    .replace(/@(?!\u200B)/g, `@${ZWSP}`)
    .replace(/#(?=\d|$)/g, `#${ZWSP}`)
    .replace(/\b(gh)-(?=\d)/gi, `$1-${ZWSP}`)
    .replace(/:\/\//g, `:${ZWSP}//`)
    .replace(/\b(www)\./gi, `$1${ZWSP}.`)
    .replace(/(threatbridge)(?=\s*:\s*threat\s*=)/gi, `$1${ZWSP}`);
}

/** Collapses line breaks and runs of spaces into single spaces. */
function oneLine(text: string): string {
  return text.replace(LINE_BREAK, " ").replace(/ {2,}/g, " ").trim();
}

/**
 * Platform text for one line of Markdown (a table cell, a list item): no line breaks, no HTML,
 * no Markdown structure, no mentions or references.
 */
export function escapeMarkdownInline(text: string): string {
  return breakReferences(escapeMarkdownPunctuation(escapeHtml(oneLine(clean(text)))));
}

/**
 * Platform text as a Markdown block (the description): line breaks are kept as hard breaks and
 * blank lines as paragraph breaks; nothing at the start of a line can open a heading, list,
 * quote, code block or setext underline.
 */
export function escapeMarkdownBlock(text: string): string {
  const paragraphs: string[][] = [[]];
  for (const raw of clean(text).split(LINE_BREAK)) {
    const line = raw.trim().replace(/ {2,}/g, " ");
    const current = paragraphs[paragraphs.length - 1];
    if (line === "") {
      if (current !== undefined && current.length > 0) paragraphs.push([]);
      continue;
    }
    current?.push(escapeLineStart(breakReferences(escapeMarkdownPunctuation(escapeHtml(line)))));
  }
  return paragraphs
    .filter((p) => p.length > 0)
    .map((p) => p.join("\\\n"))
    .join("\n\n");
}

/** `#`, `-`, `+`, `=` open headings, lists and setext underlines; `1.` and `1)` ordered lists. */
function escapeLineStart(line: string): string {
  if (/^[#\-+=]/.test(line)) return `\\${line}`;
  return line.replace(/^(\d+)([.)])/, "$1\\$2");
}

/**
 * Platform text for a plain-text place such as the issue title: GitHub shows titles as text
 * (no HTML, so no entities here, they would show literally) but does link references in them.
 */
export function escapePlainText(text: string): string {
  return breakReferences(oneLine(clean(text)));
}

/**
 * Breaks anything in user-template output that a marker parser could take for a marker; the
 * real marker is appended after this.
 */
export function neutralizeMarkers(text: string): string {
  // A template's own text may carry bidi controls too: the whole output is made inert.
  return stripBidi(text).replace(/(threatbridge)(?=\s*:\s*threat\s*=)/gi, `$1${ZWSP}`);
}
