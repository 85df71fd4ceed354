import { createHash } from "node:crypto";
import { FOOTER } from "../../render/default-body.js";
import { escapeMarkdownBlock } from "../../render/escape.js";
import { MAX_RENDERED_BODY_LENGTH } from "../../render/limits.js";
import { findSection } from "./section.js";

/**
 * `notes.to_github` (contract, "The analyst's words on GitHub"), pure. Each body or comment showing
 * the analyst's text carries its hash in a hidden line, so a lost state reads it back from the issue.
 */

/** The hash of a text the issue shows: "" for an empty text (the issue shows none), else 16 characters. */
export function textHash(text: string): string {
  if (text === "") return "";
  return createHash("sha256").update(text).digest("base64url").slice(0, 16);
}

/** The note outside the connector's section, LF, trimmed (the blank line before the section is not the analyst's). */
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

/** Platform text escaped as every platform text is (render/escape.ts), each line quoted with `>`. */
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

/** The comment for a change of the analyst's text (`text` already cut), with the hidden line of its hash. */
export function commentBody(text: string, hash: string, changedAt: string): string {
  const head = `Platform note, changed ${minuteOf(changedAt)} UTC:`;
  const shown = text === "" ? "_The analyst cleared the note._" : quoteInert(text);
  return `${head}\n\n${shown}\n\n${noteLine(hash)}`;
}

export const BODY_HEADING = "### Platform note";

/** The body with the analyst's text before the footer (or marker), cut further to stay within GitHub's limit. */
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
