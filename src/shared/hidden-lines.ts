/**
 * The connector's hidden lines in issue bodies and comments, each written and read here only.
 * Issues on GitHub carry these exact bytes: changing a writer strands them.
 *
 * - the marker `<!-- threatbridge:threat=<threat id> -->` ties an issue to its threat (contract,
 *   "Conventions on GitHub"); a later occurrence carries `... occurrence=<n> -->`, the first the
 *   plain marker;
 * - the revision line `<!-- threatbridge:rev=<hash> -->` tells whether an issue is current;
 * - the comment key `<!-- threatbridge:comment=<intent id> -->` finds a comment after a lost response;
 * - the group marker `<!-- threatbridge:group=<by>:<key> -->` ties a parent issue to its group.
 */

/** Every hidden line of the connector, in the order a body has them. */
export const OWN_LINES = /<!-- threatbridge:[^>]*-->/g;

// UUIDs (spec "Common rules" 4) pass unchanged; other ids are percent-encoded so none can fake a marker.
const MARKER_PATTERN = /<!-- threatbridge:threat=([A-Za-z0-9%-]*)(?: occurrence=([1-9][0-9]{0,8}))? -->/g;

const SLA_SINCE_PATTERN = /<!-- threatbridge:sla-since=(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z) -->/;

/** The hidden line of an SLA's start, so a lost state file finds it again instead of restarting the SLA. */
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

/** A group's marker line; the key is percent-encoded, so it can neither end the comment nor fake a marker. */
export function groupMarkerFor(by: string, key: string): string {
  return `<!-- threatbridge:group=${encodeId(by)}:${encodeId(key)} -->`;
}

const GROUP_MARKER_PATTERN = /<!-- threatbridge:group=([A-Za-z0-9%-]*):([A-Za-z0-9%-]*) -->/;

/** The group a body's group marker names, or null: finds a group's issue after a lost state. */
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
 * A retired group issue's body: its marker becomes `<!-- threatbridge:retired-group=<by>:<key> -->`,
 * which nothing takes for a group's (contract, "Changing grouping": no marker reused).
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

/** Whether a body carries this threat's `occurrence` marker (ids case-insensitive; 2 is never 1). */
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

/** The most `withRevision` adds to a body, so a rendered body leaves room for it within GitHub's limit. */
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
