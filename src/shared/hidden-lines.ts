/**
 * The connector's hidden lines in issue bodies and comments, each written and read here only.
 * Issues already on GitHub carry these exact bytes, so a change to any writer below strands them:
 * the marker could no longer tie an issue to its threat, the revision line would make every issue
 * look stale, and a lost comment response would post the comment twice.
 *
 * - the marker `<!-- threatbridge:threat=<threat id> -->` ties an issue to its threat (contract,
 *   "Conventions on GitHub"), so an unfinished create is resolved by looking, never by re-sending;
 *   a threat's later occurrence (`recurrence: new_issue`) carries
 *   `<!-- threatbridge:threat=<threat id> occurrence=<n> -->`, and the first keeps the plain
 *   marker (occurrence 1), so issues made before recurrences existed keep theirs;
 * - the revision line `<!-- threatbridge:rev=<hash> -->` is the hash of what the issue shows, so
 *   `reconcile` (or a start with a lost state file) knows whether an issue is current;
 * - the comment key `<!-- threatbridge:comment=<intent id> -->` makes a comment findable after a
 *   lost response;
 * - the group marker `<!-- threatbridge:group=<by>:<key> -->` ties a parent issue to its group
 *   (contract, "Groups"), so an unfinished parent create is resolved by looking, as a threat's is.
 */

/** Every hidden line of the connector, in the order a body has them. */
export const OWN_LINES = /<!-- threatbridge:[^>]*-->/g;

// The spec makes threat ids UUIDs ("Common rules" 4), which pass through unchanged. Anything else
// is percent-encoded so that an odd id can neither end the comment early nor fake a second marker.
const MARKER_PATTERN = /<!-- threatbridge:threat=([A-Za-z0-9%-]*)(?: occurrence=([1-9][0-9]{0,8}))? -->/g;

const SLA_SINCE_PATTERN = /<!-- threatbridge:sla-since=(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z) -->/;

/**
 * The hidden line of an SLA's start (ISO), after the marker of an issue with a due date: the state
 * keeps it, and a lost state file finds it again here instead of restarting the SLA.
 */
export function slaSinceLine(sinceIso: string): string {
  return `<!-- threatbridge:sla-since=${sinceIso} -->`;
}

/** The SLA start an issue body carries (the last such line), or null. */
export function parseSlaSince(body: string | null | undefined): string | null {
  if (body === null || body === undefined) return null;
  const all = body.match(new RegExp(SLA_SINCE_PATTERN.source, "g"));
  const last = all?.at(-1);
  return last === undefined ? null : (SLA_SINCE_PATTERN.exec(last)?.[1] ?? null);
}

/** The marker line for a threat's issue; its first occurrence's has no occurrence number. */
export function markerFor(threatId: string, occurrence = 1): string {
  const suffix = occurrence > 1 ? ` occurrence=${occurrence}` : "";
  return `<!-- threatbridge:threat=${encodeId(threatId)}${suffix} -->`;
}

function encodeId(id: string): string {
  const wellFormed = id.replace(/[\uD800-\uDFFF]/g, (c, offset: number, all: string) =>
    isPaired(all, offset) ? c : "\uFFFD",
  );
  return encodeURIComponent(wellFormed).replace(
    /[!'()*._~]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function isPaired(text: string, offset: number): boolean {
  const code = text.charCodeAt(offset);
  if (code <= 0xdbff) {
    const next = text.charCodeAt(offset + 1);
    return next >= 0xdc00 && next <= 0xdfff;
  }
  const previous = text.charCodeAt(offset - 1);
  return previous >= 0xd800 && previous <= 0xdbff;
}

/**
 * The marker line of a group's parent issue. The key is platform text (a title, a module): it is
 * percent-encoded as a threat id is, so that it can neither end the comment nor fake a marker.
 */
export function groupMarkerFor(by: string, key: string): string {
  return `<!-- threatbridge:group=${encodeId(by)}:${encodeId(key)} -->`;
}

const GROUP_MARKER_PATTERN = /<!-- threatbridge:group=([A-Za-z0-9%-]*):([A-Za-z0-9%-]*) -->/;

/**
 * The group a body's group marker names (`by` and `key` as written before encoding), or null:
 * how a group's issue is found again when the state that knew it is lost.
 */
export function parseGroupMarker(body: string | null | undefined): { by: string; key: string } | null {
  const match = body ? GROUP_MARKER_PATTERN.exec(body) : null;
  if (!match || match[1] === undefined || match[2] === undefined) return null;
  try {
    return { by: decodeURIComponent(match[1]), key: decodeURIComponent(match[2]) };
  } catch {
    // A malformed escape is not one of our markers.
    return null;
  }
}

/**
 * A retired group issue's body (contract, "Changing grouping": no group marker is reused by a
 * second issue): its marker line becomes `<!-- threatbridge:retired-group=<by>:<key> -->`, which no
 * marker search, label listing or change poll takes for a group's, so the new setting's issue of
 * the same group is the only one that carries the marker.
 */
export function retiredGroupBody(body: string): string {
  return body.replaceAll("<!-- threatbridge:group=", "<!-- threatbridge:retired-group=");
}

/** Whether a body carries a group marker: the issue is a group's, not a threat's. */
export function isGroupIssue(body: string | null | undefined): boolean {
  return body?.includes("<!-- threatbridge:group=") === true;
}

/** Whether a body carries the marker of this group (exactly: keys are compared as written). */
export function hasGroupMarker(body: string | null | undefined, by: string, key: string): boolean {
  return body !== null && body !== undefined && body.includes(groupMarkerFor(by, key));
}

/** A marker as read: the threat it names and which occurrence of it the issue is (1 when unnumbered). */
interface MarkerFound {
  threatId: string;
  occurrence: number;
}

function findMarkers(body: string): MarkerFound[] {
  const found: MarkerFound[] = [];
  for (const match of body.matchAll(MARKER_PATTERN)) {
    const encoded = match[1];
    if (encoded === undefined) continue;
    try {
      found.push({ threatId: decodeURIComponent(encoded), occurrence: Number(match[2] ?? "1") });
    } catch {
      // A malformed escape is not one of our markers.
    }
  }
  return found;
}

/** The threat ids of every marker in an issue body, in order (for reconcile and adoption). */
export function findMarkerIds(body: string): string[] {
  return findMarkers(body).map((m) => m.threatId);
}

/** The first marker of an issue body naming a threat, or null when there is none. */
export function parseMarkerFound(body: string | null | undefined): MarkerFound | null {
  if (body === null || body === undefined) return null;
  // An empty id names no threat.
  return findMarkers(body).find((m) => m.threatId !== "") ?? null;
}

/** The threat id of the first marker in an issue body, as written, or null when there is none. */
export function parseMarker(body: string | null | undefined): string | null {
  return parseMarkerFound(body)?.threatId ?? null;
}

/**
 * Whether a body carries the marker of this threat's `occurrence` (ids compare
 * case-insensitively): occurrence 2 is never taken for 1, nor 1 for 2.
 */
export function hasMarker(body: string | null | undefined, threatId: string, occurrence = 1): boolean {
  const found = parseMarkerFound(body);
  return found?.threatId.toLowerCase() === threatId.toLowerCase() && found.occurrence === occurrence;
}

const REVISION = /<!-- threatbridge:rev=([0-9a-f]{8,64}) -->/g;

/** The longest hash a revision line carries. */
const MAX_REVISION_HASH_LENGTH = 64;

/** A body with its revision line appended (after everything else, so it is the last one). */
export function withRevision(body: string, hash: string): string {
  return `${body.trimEnd()}\n${revisionLine(hash)}\n`;
}

function revisionLine(hash: string): string {
  return `<!-- threatbridge:rev=${hash} -->`;
}

/** The last revision line wins: the connector's own is appended after everything else. */
export function parseRevision(body: string): string | null {
  let found: string | null = null;
  for (const match of body.matchAll(REVISION)) found = match[1] ?? found;
  return found;
}

/**
 * The most a body grows by `withRevision` (its line break, the line and the closing break), so
 * a rendered body can leave room for it within GitHub's limit.
 */
export const REVISION_LINE_RESERVE = `\n${revisionLine("")}\n`.length + MAX_REVISION_HASH_LENGTH;

const COMMENT_KEY = /<!-- threatbridge:comment=([^\s>]+) -->/g;

/** The hidden line that makes a comment findable after a lost response: its intent's id. */
export function commentKey(intentId: string): string {
  return `<!-- threatbridge:comment=${intentId} -->`;
}

/** The intent ids of every comment key in a comment's body, in order. */
export function parseCommentKeys(body: string): string[] {
  return [...body.matchAll(COMMENT_KEY)].flatMap((match) => (match[1] === undefined ? [] : [match[1]]));
}

/** Whether a comment's body carries the key of an intent. */
export function commentKeyed(body: string, intentId: string): boolean {
  return body.includes(commentKey(intentId));
}
