// Stores a plain state object (src/sync/schema.ts State, as a bench generates it) at a state path
// in one commit of the store (src/state/README-store.md): the rows in `<path>.db`, the saved
// cursors in the document at `path`. A threat's `position` (never read) and a `gone: false` are
// dropped, as the engine never stores them.
//
// With `dist` (the dist/ folder of another built checkout), the state goes through THAT build's
// own state API, so that two builds paired by bench/store-pair.mjs hold the same world each in its
// own store. A build from before the SQLite store (its state module has `openJournaledStore` and
// no `databasePathOf`) took its state as a VERSION-1 file that its engine converts on first open:
// the object is written as that file by its own openStateStore, then converted once by its own
// openEngineState (dist/cli/state-open.js), as that build's `sync` would.
import { readdirSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const OWN_DIST = resolve(import.meta.dirname, "../dist");

/** Bytes of a state's files beside `path` (without a kept `*.bak` and the lock). */
export function storeBytes(path) {
  const dir = dirname(path);
  const name = basename(path);
  return readdirSync(dir)
    .filter((n) => n.startsWith(name.replace(/\.json$/, "")) && !n.endsWith(".bak") && !n.endsWith(".lock"))
    .reduce((sum, n) => sum + statSync(join(dir, n)).size, 0);
}

export async function seedStore(path, state, dist = OWN_DIST) {
  const mod = await import(pathToFileURL(join(dist, "state/index.js")).href);
  if (!mod.databasePathOf && mod.openJournaledStore) {
    await seedVersionOne(mod, path, state, dist);
    return storeBytes(path);
  }
  const store = await mod.openStateStore(path);
  // A bench's records spell the workflow features' data as fields (`sla`, `acceptance`, …), as the
  // store before SQLite did: they go into the features' slices as an import puts them.
  // Where the build keeps it: beside the importer, or (a build from before that) in state/.
  const legacy =
    (await import(pathToFileURL(join(dist, "state-import/legacy-rows.js")).href).catch(() => null)) ??
    (await import(pathToFileURL(join(dist, "state/legacy-rows.js")).href).catch(() => null));
  const shaped = legacy?.legacyThreatRow ?? ((row) => row);
  const threats = Object.entries(state.threats).map(([id, { position: _position, gone, ...rest }]) => [
    id,
    shaped(gone ? { ...rest, gone } : rest),
  ]);
  const collections = {
    assets: Object.entries(state.assets ?? {}),
    queue: Object.entries(state.queue ?? {}),
    intents: Object.entries(state.intents ?? {}),
    retryThreats: Object.entries(state.retry?.threats ?? {}),
    retryAssets: Object.entries(state.retry?.assets ?? {}),
    groups: Object.entries(state.groups ?? {}),
    threats,
  };
  for (const [collection, rows] of Object.entries(collections))
    for (const [key, value] of rows) store.set(collection, key, value);
  store.setMeta("cursors", state.cursors);
  store.setMeta("githubSince", state.github?.since ?? {});
  store.setMeta("etags", state.github?.etags ?? []);
  store.setMeta("seq", state.seq ?? 0);
  store.setMeta("lastCycle", state.lastCycle ?? null);
  for (const key of [
    "renderKey",
    "platformNotBefore",
    "cursorRefused",
    "features",
    "groupsListed",
    "groupingSeen",
  ])
    if (state[key] !== undefined) store.setMeta(key, state[key]);
  await store.commit();
  await store.close();
  return storeBytes(path);
}

/** A journaled-store build: the VERSION-1 file by its openStateStore, converted by its openEngineState. */
async function seedVersionOne(mod, path, state, dist) {
  const file = await mod.openStateStore(path);
  file.data = { ...mod.emptyState(), ...state };
  await file.write();
  const { openEngineState } = await import(pathToFileURL(join(dist, "cli/state-open.js")).href);
  const opened = await openEngineState(path);
  await opened.close();
}
