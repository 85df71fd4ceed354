import { z } from "zod";
import {
  emptyState,
  LastCycle,
  openJournaledStore,
  State,
  type JournaledStore,
  type ThreatRecord,
  type Json,
} from "../state/index.js";
import { toThreatRecord } from "./threat-record-guard.js";
import { COLLECTIONS, type Collection, type MetaKey, type StateCommit } from "./state-changes.js";

/**
 * The engine's state over the journaled store (issue 7, item 1): loaded once at start, then
 * every `persist` is one commit of exactly the values that changed (src/state/README-store.md).
 */

const Meta = z.object({
  cursors: State.shape.cursors.default({ assets: null, threats: null }),
  githubSince: State.shape.github.shape.since.default({}),
  etags: State.shape.github.shape.etags.default([]),
  seq: State.shape.seq.default(0),
  lastCycle: LastCycle.nullable().default(null),
  renderKey: z.string().nullish(),
  platformNotBefore: z.number().nullish(),
});

function metaOf(store: JournaledStore): Record<string, Json> {
  const keys: MetaKey[] = [
    "cursors",
    "githubSince",
    "etags",
    "seq",
    "lastCycle",
    "renderKey",
    "platformNotBefore",
  ];
  const meta: Record<string, Json> = {};
  for (const key of keys) {
    const value = store.getMeta(key);
    if (value !== undefined) meta[key] = value;
  }
  return meta;
}

/** The state the store holds, parsed (a value that does not parse is `state_corrupt` at open). */
export function stateFromStore(store: JournaledStore): State {
  const meta = Meta.parse(metaOf(store));
  const state = emptyState();
  const records: Record<Collection, Record<string, unknown>> = {
    threats: {},
    assets: {},
    queue: {},
    intents: {},
    retryThreats: {},
    retryAssets: {},
  };
  for (const collection of COLLECTIONS) {
    if (collection === "threats") continue;
    const target = records[collection];
    for (const [key, value] of store.entries(collection)) target[key] = value;
  }
  // The threats are checked row by row (threat-record-guard.ts); the rest, small, by the schema,
  // which applies defaults and refuses a value of a wrong shape.
  const threats: Record<string, ThreatRecord> = {};
  for (const [key, value] of store.entries("threats")) threats[key] = toThreatRecord(value);
  const parsed = State.parse({
    ...state,
    cursors: meta.cursors,
    github: { since: meta.githubSince, etags: meta.etags },
    seq: meta.seq,
    lastCycle: meta.lastCycle,
    ...(meta.renderKey != null ? { renderKey: meta.renderKey } : {}),
    ...(meta.platformNotBefore != null ? { platformNotBefore: meta.platformNotBefore } : {}),
    threats: {},
    assets: records.assets,
    queue: records.queue,
    intents: records.intents,
    retry: { threats: records.retryThreats, assets: records.retryAssets },
  });
  return { ...parsed, threats };
}

const JsonValue = z.json();

/** Engine values are plain JSON (built from parsed data); undefined optional fields are dropped. */
function toJson(value: unknown): Json {
  return JsonValue.parse(value === undefined ? null : JSON.parse(JSON.stringify(value)));
}

/** One durable commit of exactly the changed values (a set, or a delete) and meta. */
export function commitToStore(store: JournaledStore, commit: StateCommit): Promise<void> {
  for (const change of commit.changes) {
    if (change.value === undefined) store.delete(change.collection, change.key);
    else store.set(change.collection, change.key, toJson(change.value));
  }
  for (const { key, value } of commit.meta) store.setMeta(key, toJson(value ?? null));
  return store.commit();
}

/** Reads the state at `path` without the lock and without writing (null: nothing stored yet). */
export async function readJournaledState(path: string): Promise<State | null> {
  const store = await openJournaledStore(path, { readOnly: true });
  try {
    const stats = store.stats();
    return stats.seq > 0 || stats.snapshotBytes > 0 ? stateFromStore(store) : null;
  } finally {
    await store.close();
  }
}
