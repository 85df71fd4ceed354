import { ThreatIndex } from "../../src/sync/records/threat-index.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStateStore } from "../../src/state/index.js";
import { emptyState } from "../../src/sync/schema.js";
import { stateFromStore } from "../../src/sync/index.js";
import { commitToStore } from "../../src/sync/records/stored-state.js";
import { commitOf } from "../../src/sync/records/state-changes.js";
import {
  createStateContext,
  dropQueue,
  putQueue,
  putThreat,
  setMeta,
} from "../../src/sync/records/state-updates.js";

/** The engine's state over the store: what a commit writes is what the next start reads. */

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

const ISSUE = {
  repo: "acme/sec",
  number: 3,
  url: "https://github.com/acme/sec/issues/3",
  state: "open" as const,
  hash: "h",
};

describe("stored state", () => {
  it("commits of the changed values (sets, deletes, meta) are what the next open reads", async () => {
    dir = await mkdtemp(join(tmpdir(), "tb-state-"));
    const path = join(dir, "state.json");
    const store = await openStateStore(path);
    const c = {
      ...createStateContext(emptyState(), { freeze: true }),
      index: new ThreatIndex(),
    };
    putThreat(c, "t1", {
      status: "unsolved",
      severity: 4,
      assetId: "a1",
      updatedAt: "u1",
      issue: ISSUE,
      link: "acme/sec#3",
    });
    putThreat(c, "t2", {
      status: "unsolved",
      severity: 1,
      assetId: null,
      updatedAt: "u2",
      gone: true,
      refused: { action: "update", reason: "locked", at: "x" },
    });
    putQueue(c, "t1", { seq: 1, enqueuedAt: "e", attempts: 0 });
    setMeta(c, "cursors", { assets: "a9", threats: "t9" });
    await commitToStore(store, commitOf(c.state, c.changes));
    c.changes.keys.clear();
    c.changes.meta.clear();
    dropQueue(c, "t1");
    setMeta(c, "renderKey", "rk");
    const second = commitOf(c.state, c.changes);
    expect(second.changes).toEqual([{ collection: "queue", key: "t1", value: undefined }]);
    await commitToStore(store, second);
    await store.close();

    const reopened = await openStateStore(path, { readOnly: true });
    const state = stateFromStore(reopened);
    expect(Object.fromEntries(state.threats.entries())).toEqual(
      Object.fromEntries(c.state.threats.entries()),
    );
    expect(state.queue).toEqual({});
    expect(state.cursors).toEqual({ assets: "a9", threats: "t9" });
    expect(state.renderKey).toBe("rk");
    await reopened.close();
  });

  it("a stored threat of a wrong shape is refused when read, not taken as it is", async () => {
    dir = await mkdtemp(join(tmpdir(), "tb-state-"));
    const path = join(dir, "state.json");
    const store = await openStateStore(path);
    store.set("threats", "t1", { status: "unsolved", severity: 9, assetId: null, updatedAt: "u" });
    await store.commit();
    expect(() => stateFromStore(store).threats.get("t1")).toThrow();
    await store.close();
  });

  it("assets are read as the schema reads them: plain ones as they are, with the routes' values; one of a wrong shape refused; a field the schema does not name dropped", async () => {
    dir = await mkdtemp(join(tmpdir(), "tb-state-"));
    const path = join(dir, "state.json");
    const store = await openStateStore(path);
    const plain = { name: "db-1", type: "host", deleted: false, updatedAt: "u" };
    store.set("assets", "a1", plain);
    store.set("assets", "a2", { ...plain, name: null, routeValues: { env: "prod" } });
    await store.commit();
    expect(stateFromStore(store).assets).toEqual({
      a1: plain,
      a2: { ...plain, name: null, routeValues: { env: "prod" } },
    });
    // A field the schema does not name: the schema reads every asset, and drops it.
    store.set("assets", "a3", { ...plain, extra: 1 });
    await store.commit();
    expect(stateFromStore(store).assets["a3"]).toEqual(plain);
    expect(stateFromStore(store).assets["a2"]).toEqual({
      ...plain,
      name: null,
      routeValues: { env: "prod" },
    });
    store.set("assets", "a4", { ...plain, deleted: "no" });
    await store.commit();
    expect(() => stateFromStore(store)).toThrow();
    await store.close();
  });

  it("lazy assets (status): read as at open when first used, a damaged one refused there with the same error", async () => {
    dir = await mkdtemp(join(tmpdir(), "tb-state-"));
    const path = join(dir, "state.json");
    const store = await openStateStore(path);
    const plain = { name: "db-1", type: "host", deleted: false, updatedAt: "u" };
    store.set("assets", "a1", plain);
    store.set("assets", "a2", { ...plain, routeValues: { env: "prod" } });
    store.set("assets", "a3", { ...plain, extra: 1 });
    await store.commit();
    const lazy = stateFromStore(store, { lazyAssets: true });
    expect(Object.keys(lazy)).toEqual(Object.keys(stateFromStore(store)));
    expect(lazy.assets).toEqual(stateFromStore(store).assets);
    store.set("assets", "a4", { ...plain, deleted: "no" });
    await store.commit();
    const damaged = stateFromStore(store, { lazyAssets: true });
    const atOpen = (() => {
      try {
        stateFromStore(store);
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(atOpen).toBeInstanceOf(Error);
    expect(() => damaged.assets).toThrow((atOpen as Error).message);
    await store.close();
  });
});
