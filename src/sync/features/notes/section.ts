import { createHash } from "node:crypto";
import { NOTE_BEGIN, NOTE_END, type NoteSectionScope } from "../../../config/notes.js";
import { getPath } from "../../../shared/json.js";

/**
 * The connector's section of a threat's note (contract, "The conversation back": notes), pure. The
 * section is the lines from `--- threatbridge: GitHub ---` to `--- threatbridge: end ---`; the text
 * outside it is the analyst's and is kept byte for byte. Which lines count as the section, in the
 * odd cases (decided here, tested in test/sync/features/notes/section.test.ts):
 *
 * - a marker is a whole line equal to the marker (a trailing `\r` of a CRLF note allowed);
 * - the section is a begin line followed by an end line; with several begins before one end, the
 *   last begin (the innermost pair): text between an earlier, unmatched begin and it stays outside;
 * - a begin with no end after it, or an end with no begin before it, is the analyst's text: the
 *   note is treated as having no section, and a new one is appended (nothing of it is replaced);
 * - several complete sections (the analyst copied one): the one whose text is what the connector
 *   last wrote, else the last one, is replaced; the others stay as the analyst's text;
 * - a note without a section gets it after a blank line (the note's own line ending); an empty note
 *   gets just the section.
 *
 * The section the connector renders never holds a marker line inside (`plainLines` quotes them),
 * so what it writes is read back as exactly one section.
 */

export const BEGIN = NOTE_BEGIN;
export const END = NOTE_END;

/** Where the section is in a note: `[start, end)` in UTF-16 units, the end line's newline excluded. */
export interface SectionSpan {
  start: number;
  end: number;
  text: string;
}

function isLine(line: string, marker: string): boolean {
  return line === marker || line === `${marker}\r`;
}

/** Every complete section of a note (non-overlapping, in order). */
export function sectionSpans(note: string): SectionSpan[] {
  const spans: SectionSpan[] = [];
  let open: number | null = null;
  let at = 0;
  while (at <= note.length) {
    const newline = note.indexOf("\n", at);
    const stop = newline === -1 ? note.length : newline;
    const line = note.slice(at, stop);
    if (isLine(line, BEGIN)) open = at;
    else if (open !== null && isLine(line, END)) {
      // The end line's `\r` belongs to the line ending, not to the section.
      const end = line.endsWith("\r") ? stop - 1 : stop;
      spans.push({ start: open, end, text: note.slice(open, end) });
      open = null;
    }
    if (newline === -1) break;
    at = newline + 1;
  }
  return spans;
}

/** The section the connector owns in a note: the one it last wrote (by hash), else the last one. */
export function findSection(note: string, writtenHash?: string): SectionSpan | null {
  const spans = sectionSpans(note);
  if (spans.length === 0) return null;
  const mine = writtenHash === undefined ? undefined : spans.find((s) => sectionHash(s.text) === writtenHash);
  return mine ?? spans[spans.length - 1] ?? null;
}

/**
 * The note with its section replaced by `section` (which starts with BEGIN and ends with END), or
 * appended after a blank line when it has none. Everything else is kept byte for byte.
 */
export function spliceNote(note: string, section: string, writtenHash?: string): string {
  const span = findSection(note, writtenHash);
  if (span) return note.slice(0, span.start) + section + note.slice(span.end);
  if (note === "") return section;
  const eol = note.includes("\r\n") ? "\r\n" : "\n";
  const gap = note.endsWith("\n") ? eol : `${eol}${eol}`;
  return note + gap + section;
}

export function sectionHash(section: string): string {
  return createHash("sha256").update(section).digest("base64url").slice(0, 16);
}

/** A line of people's or a template's text that looks like a marker is quoted, so it is never one. */
function plainLines(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => (/^\s*--- threatbridge:/.test(line) ? `> ${line}` : line))
    .join("\n");
}

/** GitHub's Markdown as plain text: hidden HTML comments dropped, line endings made LF, trimmed. */
export function plainText(body: string): string {
  return body
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/\r\n?/g, "\n")
    .trim();
}

/** A UTC time as the section shows it: `2026-01-02 10:00 UTC`. */
export function utcMinute(iso: string): string {
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return iso;
  return `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

export function defaultBody(scope: NoteSectionScope): string {
  const { issue } = scope;
  const lines = [`Issue: ${issue.ref} ${issue.url}`];
  lines.push(`State: ${issue.state}${issue.reason === "" ? "" : ` (${issue.reason})`}`);
  if (issue.assignees.length > 0) lines.push(`Assignees: ${issue.assignees.join(", ")}`);
  if (issue.milestone !== "") lines.push(`Milestone: ${issue.milestone}`);
  if (issue.due !== "") lines.push(`Due: ${issue.due}`);
  for (const c of scope.comments) lines.push("", `${c.author} at ${c.at}:`, c.text);
  return lines.join("\n");
}

const ELLIPSIS = "…";

/** The whole section, markers included, cut to `maxLength` with "…" (never splitting a surrogate pair). */
export function renderSection(body: string, maxLength: number): string {
  const head = `${BEGIN}\n`;
  const tail = `\n${END}`;
  let text = plainLines(body).trimEnd();
  const room = Math.max(0, maxLength - head.length - tail.length);
  if (text.length > room) {
    let cut = Math.max(0, room - ELLIPSIS.length);
    const code = text.charCodeAt(cut - 1);
    if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
    text = text.slice(0, cut) + ELLIPSIS;
  }
  return head + text + tail;
}

/** The note a threat read carries: its text ("" for null), or undefined when the field is absent. */
export function noteOf(threat: unknown, path: string): string | undefined {
  const value = getPath(threat, path);
  if (value === undefined) return undefined;
  return typeof value === "string" ? value : value === null ? "" : undefined;
}
