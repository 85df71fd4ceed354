/**
 * The hidden marker that ties an issue to its threat (contract: "Conventions on GitHub":
 * every issue the connector creates carries `<!-- threatbridge:threat=<threat uuid> -->`).
 * It is what lets an unfinished create be resolved by looking, never by re-sending.
 */

const MARKER_PATTERN =
  /<!-- threatbridge:threat=([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}) -->/;

/** The marker line for a threat, exactly as the contract spells it. */
export function markerFor(threatId: string): string {
  return `<!-- threatbridge:threat=${threatId} -->`;
}

/** The threat id of the first marker in an issue body, as written, or null when there is none. */
export function parseMarker(body: string | null | undefined): string | null {
  if (body === null || body === undefined) return null;
  const match = MARKER_PATTERN.exec(body);
  // As written: the connector writes the platform's id verbatim and looks it up the same way.
  return match?.[1] ?? null;
}

/** Whether a body carries the marker of this threat (ids compare case-insensitively). */
export function hasMarker(body: string | null | undefined, threatId: string): boolean {
  return parseMarker(body)?.toLowerCase() === threatId.toLowerCase();
}
