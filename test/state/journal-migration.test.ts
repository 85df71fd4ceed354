import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openJournaledStore, openStateStore } from "../../src/state/index.js";
import { withTempDir } from "./helpers.js";

let dir: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, cleanup } = await withTempDir());
});
afterEach(async () => {
  await cleanup();
});

describe("migration from today's version-1 state file", () => {
  it("openJournaledStore converts a state file written by openStateStore, keeps a copy, and loses nothing", async () => {
    const path = join(dir, "state.json");
    const v1 = await openStateStore(path);
    v1.data.cursors = { assets: "a-cur", threats: "t-cur" };
    v1.data.github = { since: { "acme/sec": "2026-01-01T00:00:00Z" }, etags: [["k", 'W/"1"']] };
    v1.data.seq = 7;
    v1.data.renderKey = "rk1";
    v1.data.lastCycle = { startedAt: "s", finishedAt: "f", ok: true, counts: { created: 2 } };
    v1.data.assets["a1"] = { name: "db", type: "domain", deleted: false, updatedAt: "u" };
    v1.data.threats["t1"] = {
      status: "open",
      severity: 4,
      assetId: "a1",
      updatedAt: "u",
      gone: false,
      issue: {
        repo: "acme/sec",
        number: 12,
        url: "https://github.com/acme/sec/issues/12",
        state: "open",
        hash: "h",
      },
      link: "acme/sec#12",
    };
    v1.data.threats["t2"] = {
      status: "fixed",
      severity: 1,
      assetId: null,
      updatedAt: "u",
      gone: true,
    };
    v1.data.queue["t2"] = {
      seq: 3,
      enqueuedAt: "e",
      attempts: 1,
      lastError: "boom",
    };
    v1.data.intents["i1"] = { id: "i1", kind: "create", threatId: "t1", repo: "acme/sec", startedAt: "s" };
    v1.data.retry.threats["t9"] = { attempts: 2, lastError: "x", since: "s" };
    // Groups (contract, "Groups": at most one parent per group, ever) and the rest of the meta.
    v1.data.groups = {
      "group:asset:a1": {
        by: "asset",
        key: "a1",
        members: { t1: { title: "T1", severity: 4 } },
        parents: {
          "acme/sec": {
            number: 13,
            url: "https://github.com/acme/sec/issues/13",
            state: "open",
            hash: "g",
            attached: ["t1"],
          },
        },
        mode: "parent",
      },
    };
    v1.data.features = { notes: { "acme/sec": "2026-01-02T00:00:00Z" } };
    v1.data.platformNotBefore = 1_767_225_600_000;
    v1.data.cursorRefused = { threats: { at: "a", detail: "d" } };
    await v1.write();
    const original = await readFile(path, "utf8");

    const store = await openJournaledStore(path);
    // Everything but `gone: false`, which is kept only while true (only what must be remembered is stored).
    const { gone: _notGone, ...t1 } = JSON.parse(JSON.stringify(v1.data.threats["t1"])) as Record<
      string,
      unknown
    >;
    expect(_notGone).toBe(false);
    expect(Object.fromEntries(store.entries("threats"))).toEqual({
      t1,
      t2: JSON.parse(JSON.stringify(v1.data.threats["t2"])),
    });
    expect(store.get("assets", "a1")).toEqual(v1.data.assets["a1"]);
    expect(store.get("queue", "t2")).toEqual(v1.data.queue["t2"]);
    expect(store.get("intents", "i1")).toEqual(v1.data.intents["i1"]);
    expect(store.get("retryThreats", "t9")).toEqual(v1.data.retry.threats["t9"]);
    expect(store.getMeta("cursors")).toEqual({ assets: "a-cur", threats: "t-cur" });
    expect(store.getMeta("githubSince")).toEqual({ "acme/sec": "2026-01-01T00:00:00Z" });
    expect(store.getMeta("etags")).toEqual([["k", 'W/"1"']]);
    expect(store.getMeta("seq")).toBe(7);
    expect(store.getMeta("renderKey")).toBe("rk1");
    expect(store.getMeta("lastCycle")).toEqual(v1.data.lastCycle);
    expect(store.get("groups", "group:asset:a1")).toEqual(v1.data.groups["group:asset:a1"]);
    expect(store.getMeta("features")).toEqual(v1.data.features);
    expect(store.getMeta("platformNotBefore")).toBe(1_767_225_600_000);
    expect(store.getMeta("cursorRefused")).toEqual(v1.data.cursorRefused);
    await store.close();

    expect(await readFile(`${path}.v1.bak`, "utf8")).toBe(original);
    // Version 6: the groups collection is packed (codec raw-pack), which a version-5 reader does not know.
    expect(JSON.parse(await readFile(path, "utf8"))).toMatchObject({
      format: "threatbridge-store",
      version: 6,
      collections: { groups: { codec: "raw-pack" } },
    });
    const again = await openJournaledStore(path);
    expect(again.get("threats", "t1")).toEqual(t1);
    expect(again.getMeta("migratedFrom")).toBe(1);
    expect(again.get("groups", "group:asset:a1")).toEqual(v1.data.groups["group:asset:a1"]);
    await again.close();
  });
});
