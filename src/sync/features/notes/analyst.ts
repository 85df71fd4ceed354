import { createHash } from "node:crypto";
import { FOOTER } from "../../render/default-body.js";
import { escapeMarkdownBlock } from "../../render/escape.js";
import { MAX_RENDERED_BODY_LENGTH } from "../../render/limits.js";
import { findSection } from "./section.js";

/**
 * The analyst's words on GitHub (contract, "The analyst's words on GitHub": `notes.to_github`),
 * pure: the analyst's text is the note outside the connector's section; the issue shows it in its
 * body when it is created with one, and in one comment per change after that. Each carries the
 * hidden line `<!-- threatbridge:note=<hash> -->`, the hash of the text it shows, so that what the
 * issue last showed can be read back from the issue itself (after a lost state).
 */

/** The hash of a text the issue shows: "" for an empty text (the issue shows none), else 16 characters. */
export function textHash(text: string): string {
  if (text === "") return "";
  return createHash("sha256").update(text).digest("base64url").slice(0, 16);
}

/**
 * The analyst's text of a note: everything outside the connector's section (the one it last wrote,
 * `writtenHash`, else the last), line endings made LF, trimmed, so that the blank line the
 * connector puts before its section is not the analyst's.
 */
export function analystText(note: string, writtenHash?: string): string {
  const span = findSection(note, writtenHash);
  const outside = span ? note.slice(0, span.start) + note.slice(span.end) : note;
  return outside
    .replace(/\r\n?/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

const ELLIPSIS = "…";

/** The text cut to `maxLength` characters with "…" where it was cut; a cut never splits a surrogate pair. */
export function cutText(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  let cut = Math.max(0, maxLength - ELLIPSIS.length);
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  return text.slice(0, cut) + ELLIPSIS;
}

/** The hidden line a body or comment showing a text carries. */
export function noteLine(hash: string): string {
  return `<!-- threatbridge:note=${hash} -->`;
}

const NOTE_LINE = /<!-- threatbridge:note=([A-Za-z0-9_-]*) -->/g;

/** The hash of the last hidden note line of a body or comment, or undefined when it has none. */
export function shownHash(body: string): string | undefined {
  let last: string | undefined;
  for (const match of body.matchAll(NOTE_LINE)) last = match[1];
  return last;
}

/** What the issue last showed by its comments (the last one carrying a note line), else undefined. */
export function lastShown(comments: ReadonlyArray<{ body: string }>): string | undefined {
  for (let i = comments.length - 1; i >= 0; i -= 1) {
    const hash = shownHash(comments[i]?.body ?? "");
    if (hash !== undefined) return hash;
  }
  return undefined;
}

/**
 * Platform text quoted inertly: escaped as every platform text is (no @mention, no issue
 * reference, no HTML, no Markdown structure: render/escape.ts), then each line quoted with `>`.
 */
export function quoteInert(text: string): string {
  return escapeMarkdownBlock(text)
    .split("\n")
    .map((line) => (line === "" ? ">" : `> ${line}`))
    .join("\n");
}

/** `2026-01-02 10:00`: the minute of an ISO time in UTC (the text as given when it does not parse). */
function minuteOf(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? new Date(ms).toISOString().slice(0, 16).replace("T", " ") : iso;
}

/**
 * The comment for a change of the analyst's text (`text` already cut): the line
 * `Platform note, changed <YYYY-MM-DD HH:MM> UTC:`, the text quoted inertly (or, emptied, a line
 * saying the note was cleared), and the hidden line of its hash.
 */
export function commentBody(text: string, hash: string, changedAt: string): string {
  const head = `Platform note, changed ${minuteOf(changedAt)} UTC:`;
  const shown = text === "" ? "_The analyst cleared the note._" : quoteInert(text);
  return `${head}\n\n${shown}\n\n${noteLine(hash)}`;
}

/** The heading of the body's part showing the analyst's text. */
export const BODY_HEADING = "### Platform note";

/**
 * The body with the analyst's text (already cut) shown under `### Platform note`, before the
 * footer (or, in a templated body, before the marker), with its hidden line. The text is cut further
 * where the body would pass GitHub's limit.
 */
export function withBodyNote(body: string, text: string, hash: string, marker: string): string {
  const footerAt = body.lastIndexOf(FOOTER);
  const markerAt = body.lastIndexOf(marker);
  const at = footerAt >= 0 ? footerAt : markerAt >= 0 ? markerAt : body.length;
  const before = body.slice(0, at).trimEnd();
  const after = body.slice(at);
  const frame = `${before}\n\n${BODY_HEADING}\n\n\n\n${noteLine(hash)}\n\n${after}`;
  const room = MAX_RENDERED_BODY_LENGTH - frame.length;
  if (room <= 0) return body;
  // Escaping can double a text's length (`[` → `\[`), so the cut before it leaves room for that.
  let quoted = quoteInert(text);
  if (quoted.length > room) quoted = quoteInert(cutText(text, Math.floor(room / 3)));
  if (quoted.length > room) return body;
  return `${before}\n\n${BODY_HEADING}\n\n${quoted}\n\n${noteLine(hash)}\n\n${after}`;
}
