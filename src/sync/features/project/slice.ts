/** What a threat's record keeps of its item: the issue, the item id (0: removed by a person), field hashes. */
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

/** A slice as stored: tab-separated, or JSON where a name holds a tab or newline; `decodeSlice` reads both. */
export function encodeSlice(slice: ProjectSlice): string {
  const fields = Object.entries(slice.v);
  const plain = (text: string): boolean => !/[\t\n]/.test(text);
  if (!plain(slice.k) || !fields.every(([name, hash]) => plain(name) && plain(hash)))
    return JSON.stringify(slice);
  return [String(slice.i), slice.k, ...fields.flat()].join("\t");
}

/** The slice, or undefined when absent or not one of ours (a hand-edited state: planned again). */
/** `target[name] = value` as an own key, whatever the name (a field named `__proto__` included). */
function setOwn(target: Record<string, string>, name: string, value: string): void {
  if (name === "__proto__")
    Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
  else target[name] = value;
}

/** The item id a slice records (0: removed by a person), read without decoding its fields. */
export function itemOf(raw: string): number | undefined {
  if (raw.startsWith("{")) return decodeSlice(raw)?.i;
  const tab = raw.indexOf("\t");
  const item = Number(tab < 0 ? Number.NaN : raw.slice(0, tab));
  return Number.isSafeInteger(item) ? item : undefined;
}

export function decodeSlice(raw: string | undefined): ProjectSlice | undefined {
  if (raw === undefined) return undefined;
  if (!raw.startsWith("{")) {
    const [item, k, ...cells] = raw.split("\t");
    const i = Number(item);
    if (k === undefined || !Number.isSafeInteger(i) || cells.length % 2 !== 0) return undefined;
    const v: Record<string, string> = {};
    for (let n = 0; n < cells.length; n += 2) setOwn(v, cells[n] ?? "", cells[n + 1] ?? "");
    return { k, i, v };
  }
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== "object" || parsed === null) return undefined;
    const { k, i, v } = parsed as Record<string, unknown>;
    if (typeof k !== "string" || typeof i !== "number" || typeof v !== "object" || v === null)
      return undefined;
    const values: Record<string, string> = {};
    for (const [name, hash] of Object.entries(v)) if (typeof hash === "string") setOwn(values, name, hash);
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

/** One group issue's item in a group's slice: the item's id (0: removed by a person) and its field hashes. */
export interface GroupItem {
  i: number;
  v: Record<string, string>;
}

/** What a group's record keeps of its issues' items, by issue: the item and its fields' hashes. */
export type GroupSlice = Record<string, GroupItem>;

export function encodeGroupSlice(slice: GroupSlice): string | undefined {
  return Object.keys(slice).length === 0 ? undefined : JSON.stringify(slice);
}

/** The group's items by issue; empty when absent or not one of ours (a hand-edited state: planned again). */
export function decodeGroupSlice(raw: string | undefined): GroupSlice {
  if (raw === undefined) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return {};
    const out: GroupSlice = {};
    for (const [key, entry] of Object.entries(parsed)) {
      const decoded = decodeSlice(JSON.stringify({ ...(entry as object), k: key }));
      if (decoded) out[key] = { i: decoded.i, v: decoded.v };
    }
    return out;
  } catch {
    return {};
  }
}
