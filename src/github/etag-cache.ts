import { z } from "zod";

/** ETags of change queries, one per (repository, kind of query), as plain data the state keeps. */
export const EtagEntry = z.object({
  repo: z.string(),
  kind: z.string(),
  query: z.string(),
  etag: z.string(),
});
export type EtagEntry = z.infer<typeof EtagEntry>;
const EtagEntries = z.array(EtagEntry);

export interface EtagCache {
  get(repo: string, kind: string, query: string): string | null;
  set(repo: string, kind: string, query: string, etag: string): void;
  forget(repo: string, kind: string): void;
  exportEtags(): EtagEntry[];
  /** Replaces the cache with entries from `exportEtags()`; malformed input is ignored whole. */
  importEtags(data: unknown): void;
}

export function createEtagCache(): EtagCache {
  const entries = new Map<string, EtagEntry>();
  const keyOf = (repo: string, kind: string): string => `${repo}\u0000${kind}`;
  return {
    get(repo, kind, query) {
      const entry = entries.get(keyOf(repo, kind));
      return entry !== undefined && entry.query === query ? entry.etag : null;
    },
    set(repo, kind, query, etag) {
      entries.set(keyOf(repo, kind), { repo, kind, query, etag });
    },
    forget(repo, kind) {
      entries.delete(keyOf(repo, kind));
    },
    exportEtags() {
      return [...entries.values()].map((entry) => ({ ...entry }));
    },
    importEtags(data) {
      const parsed = EtagEntries.safeParse(data);
      if (!parsed.success) return;
      entries.clear();
      for (const entry of parsed.data) entries.set(keyOf(entry.repo, entry.kind), entry);
    },
  };
}
