/**
 * A hidden revision line the connector appends to every body it writes: the hash of what the issue
 * shows. It lets `reconcile` (or a start with a lost state file) know whether an issue is current
 * without rewriting it.
 */
const REVISION = /<!-- threatbridge:rev=([0-9a-f]{8,64}) -->/g;

export function withRevision(body: string, hash: string): string {
  return `${body.trimEnd()}\n<!-- threatbridge:rev=${hash} -->\n`;
}

/** The last revision line wins: the connector's own is appended after everything else. */
export function parseRevision(body: string): string | null {
  let found: string | null = null;
  for (const match of body.matchAll(REVISION)) found = match[1] ?? found;
  return found;
}
