// Stores a plain state object (src/state/schema.ts State, as a bench generates it) at a state path
// in one commit of the store (src/state/README-store.md): the rows in `<path>.db`, the saved
// cursors in the document at `path`. A threat's `position` (never read) and a `gone: false` are
// dropped, as the engine never stores them.
import { statSync } from "node:fs";
import { databasePathOf, openStateStore } from "../dist/state/index.js";

export async function seedStore(path, state) {
  const store = await openStateStore(path);
  const threats = Object.entries(state.threats).map(([id, { position: _position, gone, ...rest }]) => [
    id,
    gone ? { ...rest, gone } : rest,
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
  return statSync(path).size + statSync(databasePathOf(path)).size;
}
