/**
 * Inert rendering of platform text (contract, "Conventions": no @mention, cross-reference or HTML).
 * GitHub links mentions after Markdown is parsed, so entities (`&#64;`) do not stop them: a
 * zero-width space after `@` and `#` does, invisibly.
 */

export const ZWSP = "\u200B";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
// C0 and C1 controls other than tab and line breaks; GitHub rejects or mangles them.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;
const LINE_BREAK = /\r\n|[\r\n\u2028\u2029\u0085]/g;
/** Bidi controls: an override makes `Invoice \u202Egnp.exe` show as "Invoice exe.png". */
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;

export function stripBidi(text: string): string {
  return text.replace(BIDI_CONTROL, "");
}

function clean(text: string): string {
  return stripBidi(text.replace(LONE_SURROGATE, "\uFFFD").replace(CONTROL, "").replace(/\t/g, " "));
}

/**
 * What each markup character becomes. HTML's by named entities only: a numeric one (`&#35;`) would
 * itself read as `#` followed by a digit. Markdown punctuation that could turn platform text into
 * links, images, code, emphasis, math, strike-through or table cells by a backslash; `(`, `)` and
 * `!` are harmless once `[` and `]` are escaped.
 */
const MARKUP: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
  ...Object.fromEntries([..."\\`*_[]|~$"].map((c) => [c, `\\${c}`])),
};

function escapeMarkup(text: string): string {
  return text.replace(/[&<>"'\\`*_[\]|~$]/g, (c) => MARKUP[c] ?? c);
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

function oneLine(text: string): string {
  return text.replace(LINE_BREAK, " ").replace(/ {2,}/g, " ").trim();
}

/** Platform text for one line of Markdown (a table cell, a list item). */
export function escapeMarkdownInline(text: string): string {
  return breakReferences(escapeMarkup(oneLine(clean(text))));
}

/** Platform text as a Markdown block: line breaks kept; no line start can open a heading, list or quote. */
export function escapeMarkdownBlock(text: string): string {
  const paragraphs: string[][] = [[]];
  for (const raw of clean(text).split(LINE_BREAK)) {
    const line = raw.trim().replace(/ {2,}/g, " ");
    const current = paragraphs[paragraphs.length - 1];
    if (line === "") {
      if (current !== undefined && current.length > 0) paragraphs.push([]);
      continue;
    }
    current?.push(escapeLineStart(breakReferences(escapeMarkup(line))));
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

/** Platform text for a title: no entities (titles show them literally), but references are broken. */
export function escapePlainText(text: string): string {
  return breakReferences(oneLine(clean(text)));
}

/** Breaks anything in template output a marker parser could take for ours (the real marker comes after). */
export function neutralizeMarkers(text: string): string {
  // A template's own text may carry bidi controls too: the whole output is made inert.
  return stripBidi(text).replace(/(threatbridge)(?=\s*:\s*threat\s*=)/gi, `$1${ZWSP}`);
}
