import { openStateStore, type Json } from "../../src/state/index.js";
import { type State } from "../../src/sync/schema.js";

/** Stores a plain state at `path` in one commit, as the engine's commits would have left it. */
export async function seedStore(path: string, state: State): Promise<void> {
  const store = await openStateStore(path);
  const collections: Record<string, Record<string, unknown>> = {
    threats: state.threats,
    assets: state.assets,
    queue: state.queue,
    intents: state.intents,
    retryThreats: state.retry.threats,
    retryAssets: state.retry.assets,
    groups: state.groups ?? {},
  };
  for (const [collection, rows] of Object.entries(collections))
    for (const [key, value] of Object.entries(rows)) store.set(collection, key, json(value));
  store.setMeta("cursors", json(state.cursors));
  store.setMeta("githubSince", json(state.github.since));
  store.setMeta("etags", json(state.github.etags));
  store.setMeta("seq", state.seq);
  store.setMeta("lastCycle", json(state.lastCycle));
  const optional = [
    "renderKey",
    "platformNotBefore",
    "cursorRefused",
    "features",
    "groupsListed",
    "groupingSeen",
  ] as const;
  for (const key of optional) if (state[key] !== undefined) store.setMeta(key, json(state[key]));
  await store.commit();
  await store.close();
}

function json(value: unknown): Json {
  return JSON.parse(JSON.stringify(value ?? null)) as Json;
}
