/**
 * The hidden marker that ties an issue to its threat (contract, "Conventions on GitHub": every
 * issue the connector creates carries `<!-- threatbridge:threat=<threat uuid> -->`). It is what
 * lets an unfinished create be resolved by looking, never by re-sending. One grammar, written by
 * the renderer and read by the GitHub side.
 *
 * The spec makes ids UUIDs ("Common rules" 4), which pass through unchanged. Anything else is
 * percent-encoded so that an odd id can neither end the comment early nor fake a second marker.
 */

const MARKER_PATTERN = /<!-- threatbridge:threat=([A-Za-z0-9%-]*) -->/g;

/** The marker line for a threat. */
export function markerFor(threatId: string): string {
  return `<!-- threatbridge:threat=${encodeId(threatId)} -->`;
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

/** The threat ids of every marker in an issue body, in order (for reconcile and adoption). */
export function findMarkerIds(body: string): string[] {
  const ids: string[] = [];
  for (const match of body.matchAll(MARKER_PATTERN)) {
    const encoded = match[1];
    if (encoded === undefined) continue;
    try {
      ids.push(decodeURIComponent(encoded));
    } catch {
      // A malformed escape is not one of our markers.
    }
  }
  return ids;
}

/** The threat id of the first marker in an issue body, as written, or null when there is none. */
export function parseMarker(body: string | null | undefined): string | null {
  if (body === null || body === undefined) return null;
  // An empty id names no threat.
  return findMarkerIds(body).find((id) => id !== "") ?? null;
}

/** Whether a body carries the marker of this threat (ids compare case-insensitively). */
export function hasMarker(body: string | null | undefined, threatId: string): boolean {
  return parseMarker(body)?.toLowerCase() === threatId.toLowerCase();
}
