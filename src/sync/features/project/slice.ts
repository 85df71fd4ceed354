/**
 * What a threat's record keeps of its project item (its slice, features/types.ts): which issue it
 * is for, the item's id (0: a person removed it from the board, so it is not added again), and a
 * short hash of the value last written to each field, by field name. Compact, for 100,000 threats:
 * `{"k":"acme/threats#12","i":4711,"v":{"Severity":"1x2y3z"}}`.
 */
export interface ProjectSlice {
  /** `owner/name#number` of the issue the item is for: another issue (a recurrence's) gets its own. */
  k: string;
  /** The item's id; 0 when a person removed it from the board. */
  i: number;
  /** Hashes of the rendered values written (or decided on), by field name. */
  v: Record<string, string>;
}

export const FEATURE = "project" as const;

export function issueKey(issue: { repo: string; number: number }): string {
  return `${issue.repo}#${issue.number}`;
}

export function encodeSlice(slice: ProjectSlice): string {
  return JSON.stringify(slice);
}

/** The slice, or undefined when absent or not one of ours (a hand-edited state: planned again). */
export function decodeSlice(raw: string | undefined): ProjectSlice | undefined {
  if (raw === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== "object" || parsed === null) return undefined;
    const { k, i, v } = parsed as Record<string, unknown>;
    if (typeof k !== "string" || typeof i !== "number" || typeof v !== "object" || v === null)
      return undefined;
    const values: Record<string, string> = {};
    for (const [name, hash] of Object.entries(v)) if (typeof hash === "string") values[name] = hash;
    return { k, i, v: values };
  } catch {
    return undefined;
  }
}

/** FNV-1a (32 bits) in base 36: enough to tell a changed value from the one written. */
export function valueHash(text: string): string {
  let h = 0x811c9dc5;
  for (let n = 0; n < text.length; n++) {
    h ^= text.charCodeAt(n);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36);
}
