import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStateStore, type Json } from "../../src/state/index.js";
import { type GroupParent, type GroupRecord } from "../../src/sync/schema.js";
import { stateFromStore } from "../../src/sync/index.js";
import { createStateContext } from "../../src/sync/records/state-updates.js";

/**
 * The groups are checked at open by plain type checks (a schema parse of every member was most
 * of an idle start's group cost); the schema stays the one judge of what a group is.
 */

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

const PARENT = {
  number: 12,
  id: 1200,
  url: "https://github.com/acme/sec/issues/12",
  state: "open",
  hash: "h1",
  attached: ["t1", "t2"],
} satisfies GroupParent;

const PLAIN = {
  by: "asset",
  key: "asset-1",
  mode: "parent",
  members: {
    t1: { title: "Expired TLS certificate", severity: 2 },
    t2: { title: "Old WordPress", severity: 4, status: "unsolved", assetId: null, repo: "acme/sec" },
  },
  parents: { "acme/sec": PARENT },
  slices: { project: "item=3" },
} satisfies GroupRecord;

async function openWith(groups: Record<string, Json>) {
  dir = await mkdtemp(join(tmpdir(), "tb-groups-"));
  const store = await openStateStore(join(dir, "state.json"));
  for (const [key, value] of Object.entries(groups)) store.set("groups", key, value);
  await store.commit();
  return store;
}

describe("groups at open (stateFromStore), checked by plain type checks or the schema", () => {
  it("at open: a plain group is taken as stored, a rarer one (single mode) through the schema, in the stored order", async () => {
    const single = {
      by: "cve",
      key: "CVE-2026-0001",
      mode: "single",
      members: { t3: { title: "CVE", severity: 3 } },
      parents: {},
      single: {
        "acme/sec": { number: 4, url: "https://github.com/acme/sec/issues/4", state: "open", hash: "h" },
      },
    } satisfies GroupRecord;
    const store = await openWith({ "group:cve:CVE-2026-0001": single, "group:asset:asset-1": PLAIN });
    const state = stateFromStore(store);
    expect(Object.keys(state.groups ?? {})).toEqual(["group:cve:CVE-2026-0001", "group:asset:asset-1"]);
    expect(state.groups?.["group:asset:asset-1"]).toEqual(PLAIN);
    expect(state.groups?.["group:cve:CVE-2026-0001"]).toEqual(single);
    await store.close();
  });

  it("a stored group of a wrong shape is refused when the groups are first read, not taken as it is", async () => {
    const store = await openWith({ "group:asset:asset-1": { ...PLAIN, members: { t1: { title: 1 } } } });
    // `status`, and a cycle with no group to look at, read no group: the state opens.
    const state = stateFromStore(store);
    expect(() => state.groups).toThrow();
    // The engine's context reads them when it first uses them, and refuses them then.
    const ctx = createStateContext(stateFromStore(store));
    expect(() => ctx.state.groups).toThrow();
    await store.close();
  });
});
