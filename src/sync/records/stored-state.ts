import { z } from "zod";
import { openStateStore, type Json, type StateStore } from "../../state/index.js";
import { emptyState, LastCycle, State, type GroupRecord } from "../schema.js";
import { plainGroup } from "./group-record-guard.js";
import { toJson } from "./to-json.js";
import { isRecord } from "../../shared/json.js";
import { keptValuesOf } from "../../shared/kept-values.js";
import { engineState, ThreatRecordsView, type EngineState, type ThreatRows } from "./threat-records.js";
import { COLLECTIONS, type Collection, type MetaKey, type StateCommit } from "./state-changes.js";

/**
 * The engine's state over the store (SQLite rows, saved cursors: src/state/README-store.md): the
 * small collections are read once at start, the threats stay in the database and are read through
 * it; every `persist` is one commit of exactly the values that changed.
 */

const Meta = z.object({
  cursors: State.shape.cursors.default({ assets: null, threats: null }),
  githubSince: State.shape.github.shape.since.default({}),
  etags: State.shape.github.shape.etags.default([]),
  seq: State.shape.seq.default(0),
  lastCycle: LastCycle.nullable().default(null),
  renderKey: z.string().nullish(),
  platformNotBefore: z.number().nullish(),
  cursorRefused: State.shape.cursorRefused.nullish(),
  features: State.shape.features.nullish(),
  groupsListed: State.shape.groupsListed.nullish(),
  groupingSeen: State.shape.groupingSeen.nullish(),
});

/** The schema of the groups collection (a record of GroupRecord by key). */
const StateGroups = z.object({ groups: State.shape.groups }).transform((s) => s.groups);

function metaOf(store: StateStore): Record<string, Json> {
  const keys: MetaKey[] = [
    "cursors",
    "githubSince",
    "etags",
    "seq",
    "lastCycle",
    "renderKey",
    "platformNotBefore",
    "cursorRefused",
    "features",
    "groupsListed",
    "groupingSeen",
  ];
  const meta: Record<string, Json> = {};
  for (const key of keys) {
    const value = store.getMeta(key);
    if (value !== undefined) meta[key] = value;
  }
  return meta;
}

/** The store's `threats` table as the engine's records read and write it (held once: in the database). */
function threatRowsOf(store: StateStore): ThreatRows {
  const rows: ThreatRows = {
    get: (key) => store.get("threats", key),
    set: (key, value) => store.set("threats", key, value),
    delete: (key) => store.delete("threats", key),
    entries: () => store.entries("threats"),
    keys: () => store.keys("threats"),
    get size() {
      return store.size("threats");
    },
    get queries() {
      return store.threatQueries;
    },
  };
  return rows;
}

/**
 * The stored assets when every one is plainly of the schema's shape (each field of its type, no
 * other field but the routes' values), built without the schema; undefined when one is not, and
 * the schema then checks them all (it applies defaults, or refuses a value of a wrong shape).
 */
function plainAssets(stored: Record<string, unknown>): EngineState["assets"] | undefined {
  const assets: EngineState["assets"] = {};
  const nullableText = (v: unknown): v is string | null => v === null || typeof v === "string";
  for (const [id, raw] of Object.entries(stored)) {
    if (!isRecord(raw)) return undefined;
    const { name, type, deleted, updatedAt, routeValues, ...other } = raw;
    if (!nullableText(name) || !nullableText(type) || typeof deleted !== "boolean") return undefined;
    if (typeof updatedAt !== "string" || Object.keys(other).length > 0) return undefined;
    const values = keptValuesOf(routeValues);
    if (routeValues !== undefined && values === undefined) return undefined;
    assets[id] = { name, type, deleted, updatedAt, ...(values !== undefined ? { routeValues: values } : {}) };
  }
  return assets;
}

/**
 * The assets with the values the routes read, as stored beside the schema's fields (the schema
 * does not name them, and its parse drops them): each checked, anything else dropped.
 */
function withRouteValues(
  assets: EngineState["assets"],
  stored: Record<string, unknown>,
): EngineState["assets"] {
  let out: EngineState["assets"] | undefined;
  for (const [id, raw] of Object.entries(stored)) {
    const values = isRecord(raw) ? keptValuesOf(raw["routeValues"]) : undefined;
    const asset = assets[id];
    if (values === undefined || asset === undefined) continue;
    (out ??= { ...assets })[id] = { ...asset, routeValues: values };
  }
  return out ?? assets;
}

export interface StateFromStoreOptions {
  /**
   * Read and check the assets when first used, not at open. For a reader that never uses them
   * (`status`: reading and checking 5,000 assets was about 25 ms of its 0.36 s): a stored asset that
   * does not parse then throws where they are first read, not here. The engine reads them
   * at open, so that a `sync` refuses a damaged asset before its cycle.
   */
  lazyAssets?: boolean;
}

/**
 * The state the store holds, parsed (a value that does not parse is `state_corrupt` at open).
 * The threats stay in the store and are read through it (threat-records.ts): a write to them is
 * a buffered store change at once, and `persist` commits it with the rest.
 */
export function stateFromStore(store: StateStore, opts: StateFromStoreOptions = {}): EngineState {
  const meta = Meta.parse(metaOf(store));
  const state = emptyState();
  const records: Record<Collection, Record<string, unknown>> = {
    threats: {},
    assets: {},
    queue: {},
    intents: {},
    retryThreats: {},
    retryAssets: {},
    groups: {},
  };
  const lazyAssets = opts.lazyAssets === true;
  for (const collection of COLLECTIONS) {
    // The groups are read when first used (groupsOf): `status` never reads them.
    if (collection === "threats" || collection === "groups") continue;
    if (collection === "assets" && lazyAssets) continue;
    const target = records[collection];
    for (const [key, value] of store.entries(collection)) target[key] = value;
  }
  // The threats are checked row by row (threat-record-guard.ts) as they are read; the assets by
  // plain type checks where they pass (plainAssets); the rest, small, by the schema.
  const threats = new ThreatRecordsView(threatRowsOf(store));
  const plain = lazyAssets ? {} : plainAssets(records.assets);
  const parsed = State.parse({
    ...state,
    cursors: meta.cursors,
    github: { since: meta.githubSince, etags: meta.etags },
    seq: meta.seq,
    lastCycle: meta.lastCycle,
    ...(meta.renderKey != null ? { renderKey: meta.renderKey } : {}),
    ...(meta.platformNotBefore != null ? { platformNotBefore: meta.platformNotBefore } : {}),
    ...(meta.cursorRefused != null ? { cursorRefused: meta.cursorRefused } : {}),
    ...(meta.features != null ? { features: meta.features } : {}),
    ...(meta.groupsListed != null ? { groupsListed: meta.groupsListed } : {}),
    ...(meta.groupingSeen != null ? { groupingSeen: meta.groupingSeen } : {}),
    threats: {},
    assets: plain === undefined ? records.assets : {},
    queue: records.queue,
    intents: records.intents,
    retry: { threats: records.retryThreats, assets: records.retryAssets },
  });
  // The groups when first read: the engine's context reads them as it is made (so a `sync` or a
  // `run` refuses a group that does not parse before its cycle, as before), `status` never.
  let groups: Record<string, GroupRecord> | undefined;
  const assets = plain ?? withRouteValues(parsed.assets, records.assets);
  const engine: EngineState = { ...parsed, assets, threats };
  if (lazyAssets) {
    // Redefined in place: the state's keys keep their order.
    let read: EngineState["assets"] | undefined;
    Object.defineProperty(engine, "assets", {
      enumerable: true,
      configurable: true,
      get: () => (read ??= assetsOf(store)),
      set: (value: EngineState["assets"]) => {
        read = value;
      },
    });
  }
  Object.defineProperty(engine, "groups", {
    enumerable: true,
    configurable: true,
    get: () => (groups ??= groupsOf(store)),
    set: (value: Record<string, GroupRecord> | undefined) => {
      groups = value;
    },
  });
  return engine;
}

/** The schema of the assets collection, under its key: an error's path names `assets` as at open. */
const StateAssets = z.object({ assets: State.shape.assets }).transform((s) => s.assets);

/** The stored assets as stateFromStore reads them at open: plain ones as they are, else the schema's. */
function assetsOf(store: StateStore): EngineState["assets"] {
  const stored: Record<string, unknown> = {};
  for (const [key, value] of store.entries("assets")) stored[key] = value;
  return plainAssets(stored) ?? withRouteValues(StateAssets.parse({ assets: stored }), stored);
}

/**
 * The stored groups, checked with plain type checks (group-record-guard.ts); the schema sees only
 * those the checks do not pass (it applies defaults, or refuses a value of a wrong shape). In the
 * stored order, each group as checked or as the schema gave it back.
 */
function groupsOf(store: StateStore): Record<string, GroupRecord> {
  const stored = [...store.entries("groups")];
  const checked: Record<string, GroupRecord> = {};
  const unchecked: Record<string, unknown> = {};
  for (const [key, value] of stored) {
    const group = plainGroup(value);
    if (group === null) unchecked[key] = value;
    else checked[key] = group;
  }
  const parsed = Object.keys(unchecked).length === 0 ? {} : (StateGroups.parse({ groups: unchecked }) ?? {});
  const groups: Record<string, GroupRecord> = {};
  for (const [key] of stored) {
    const group = checked[key] ?? parsed[key];
    if (group !== undefined) groups[key] = group;
  }
  return groups;
}

/**
 * One durable commit of exactly the changed values (a set, or a delete) and meta. The threats of
 * a state read by stateFromStore were written through to the store already (`throughStore`).
 */
export function commitToStore(
  store: StateStore,
  commit: StateCommit,
  throughStore: ReadonlySet<Collection> = new Set(),
): Promise<void> {
  for (const change of commit.changes) {
    if (throughStore.has(change.collection)) continue;
    if (change.value === undefined) store.delete(change.collection, change.key);
    else store.set(change.collection, change.key, toJson(change.value));
  }
  for (const { key, value } of commit.meta) store.setMeta(key, toJson(value ?? null));
  return store.commit();
}

/** Commits for a state read by stateFromStore: its threats are in the store already. */
export function persistTo(store: StateStore): (commit: StateCommit) => Promise<void> {
  const through: ReadonlySet<Collection> = new Set(["threats"]);
  return (commit) => commitToStore(store, commit, through);
}

/**
 * Reads the state at `path` without the lock and without writing (null: nothing stored yet), as
 * a plain state held in memory (tests, tools: it outlives the store, closed on return). The
 * files of the store before SQLite, not imported yet, are not read (the engine's open imports them).
 */
export async function readStoredState(path: string): Promise<EngineState | null> {
  const store = await openStateStore(path, { readOnly: true });
  try {
    if (!store.stored) return null;
    const { threats, ...rest } = stateFromStore(store);
    return engineState({ ...rest, threats: Object.fromEntries(threats.entries()) });
  } finally {
    await store.close();
  }
}
