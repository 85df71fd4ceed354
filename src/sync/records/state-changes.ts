import type { EngineState } from "./threat-records.js";

/**
 * What the engine changed in its state since the last commit, by (collection, key), so that a
 * commit writes exactly that: its cost follows the change, not the state's size.
 * The values themselves are read from the state at commit time (the latest one wins).
 */

/** The keyed collections of the state, named as the store names them. */
export type Collection =
  "threats" | "assets" | "queue" | "intents" | "retryThreats" | "retryAssets" | "groups";

/** The single values of the state, named as the store's meta names them. */
export type MetaKey =
  | "cursors"
  | "cursorRefused"
  | "githubSince"
  | "etags"
  | "seq"
  | "lastCycle"
  | "renderKey"
  | "platformNotBefore"
  | "features"
  | "groupsListed"
  | "groupingSeen";

export const COLLECTIONS: readonly Collection[] = [
  "threats",
  "assets",
  "queue",
  "intents",
  "retryThreats",
  "retryAssets",
  "groups",
];

export interface DirtySet {
  keys: Map<Collection, Set<string>>;
  meta: Set<MetaKey>;
}

export function emptyDirty(): DirtySet {
  return { keys: new Map(), meta: new Set() };
}

export function isClean(dirty: DirtySet): boolean {
  return dirty.meta.size === 0 && [...dirty.keys.values()].every((s) => s.size === 0);
}

export function markKey(dirty: DirtySet, collection: Collection, key: string): void {
  let keys = dirty.keys.get(collection);
  if (!keys) dirty.keys.set(collection, (keys = new Set()));
  keys.add(key);
}

/** The record behind a collection name (threats are read through their own view). */
export function collectionOf(
  state: EngineState,
  collection: Exclude<Collection, "threats">,
): Record<string, unknown> {
  switch (collection) {
    case "retryThreats":
      return state.retry.threats;
    case "retryAssets":
      return state.retry.assets;
    case "groups":
      // A state from before groups has none: they are added to the state the first time.
      return state.groups ?? {};
    default:
      return state[collection];
  }
}

/** The current value of a meta key (undefined: not set). */
export function metaOf(state: EngineState, key: MetaKey): unknown {
  switch (key) {
    case "githubSince":
      return state.github.since;
    case "etags":
      return state.github.etags;
    default:
      return state[key];
  }
}

/** One commit's worth of changes: values to set (undefined = delete) and meta to set. */
export interface StateCommit {
  changes: { collection: Collection; key: string; value: unknown }[];
  meta: { key: MetaKey; value: unknown }[];
}

export function commitOf(state: EngineState, dirty: DirtySet): StateCommit {
  const changes: StateCommit["changes"] = [];
  for (const [collection, keys] of dirty.keys) {
    if (collection === "threats") {
      for (const key of keys) changes.push({ collection, key, value: state.threats.get(key) });
      continue;
    }
    const record = collectionOf(state, collection);
    for (const key of keys)
      changes.push({ collection, key, value: Object.hasOwn(record, key) ? record[key] : undefined });
  }
  const meta = [...dirty.meta].map((key) => ({ key, value: metaOf(state, key) }));
  return { changes, meta };
}
