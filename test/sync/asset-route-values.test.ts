import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStateStore } from "../../src/state/index.js";
import { emptyState } from "../../src/sync/schema.js";
import { stateFromStore } from "../../src/sync/index.js";
import { commitToStore } from "../../src/sync/records/stored-state.js";
import { commitOf } from "../../src/sync/records/state-changes.js";
import { createStateContext, putAsset } from "../../src/sync/records/state-updates.js";
import { ThreatIndex } from "../../src/sync/records/threat-index.js";
import { applyAssetVersion, type EngineAsset } from "../../src/sync/transitions/threat-version.js";
import { pickValues } from "../../src/shared/kept-values.js";

/**
 * Contract, `routes[].match.where`: an `asset.…` path reads the asset's JSON. The asset stream
 * is read once; a threat is routed when its issue is created, maybe much later: what the routes
 * read of each asset is kept in its record (and only that), so matching costs no request.
 */

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

const KNOWN: EngineAsset = {
  name: "pay-db-01",
  type: "host",
  deleted: false,
  updatedAt: "u1",
  routeValues: { "asset.environment": "prod" },
};

describe("the asset values the routes read are kept with the asset", () => {
  it("only the routes' paths are kept, and only what a value in the YAML could equal", () => {
    const asset = {
      name: "pay-db-01",
      environment: "prod",
      owner: { team: "payments", on_call: ["ann", { login: "bob" }, 7] },
      notes: "x".repeat(1_001),
      retired: null,
      huge: "unread",
    };
    const paths = [
      "asset.environment",
      "asset.owner.team",
      "asset.owner.on_call",
      "asset.notes",
      "asset.retired",
      "asset.owner",
    ];
    expect(pickValues(asset, "asset", paths)).toEqual({
      "asset.environment": "prod",
      "asset.owner.team": "payments",
      // A list keeps its strings, numbers and booleans; an object in it could never match.
      "asset.owner.on_call": ["ann", 7],
    });
    expect(pickValues(asset, "asset", ["asset.missing"])).toBeUndefined();
  });

  it("a new version keeps its values; the same version with the same values is a re-delivery", () => {
    const version = { deleted: false, updatedAt: "u1", name: "pay-db-01", type: "host" };
    expect(
      applyAssetVersion(KNOWN, { ...version, routeValues: { "asset.environment": "prod" } }, () => true),
    ).toEqual({
      kind: "ignored",
    });
    const changed = applyAssetVersion(
      KNOWN,
      { ...version, updatedAt: "u2", routeValues: { "asset.environment": "dev" } },
      () => true,
    );
    expect(changed).toMatchObject({
      kind: "recorded",
      asset: { routeValues: { "asset.environment": "dev" } },
    });
  });

  it("the same version read again with other values (the routes' paths changed, the stream read again) is recorded", () => {
    const again = applyAssetVersion(
      KNOWN,
      { deleted: false, updatedAt: "u1", name: "pay-db-01", type: "host", routeValues: { "asset.tier": 1 } },
      () => true,
    );
    expect(again).toMatchObject({ kind: "recorded", asset: { routeValues: { "asset.tier": 1 } } });
  });

  it("a removal keeps the values, so that a restore routes as before", () => {
    const removed = applyAssetVersion(
      KNOWN,
      { deleted: true, updatedAt: "u2", name: null, type: null },
      () => true,
    );
    expect(removed).toMatchObject({ kind: "recorded", asset: { routeValues: KNOWN.routeValues } });
  });

  it("what a commit writes is what the next start reads; a stored value no route could match is dropped", async () => {
    dir = await mkdtemp(join(tmpdir(), "tb-route-values-"));
    const path = join(dir, "state.json");
    const store = await openStateStore(path);
    const c = { ...createStateContext(emptyState(), { freeze: true }), index: new ThreatIndex() };
    putAsset(c, "a1", {
      ...KNOWN,
      routeValues: { "asset.environment": "prod", "asset.tags": ["pci", "web"] },
    });
    putAsset(c, "a2", { name: "www", type: "domain", deleted: false, updatedAt: "u1" });
    await commitToStore(store, commitOf(c.state, c.changes));
    store.set("assets", "a3", {
      name: "x",
      type: null,
      deleted: false,
      updatedAt: "u",
      routeValues: { "asset.o": { a: 1 } },
    });
    await store.commit();
    await store.close();

    const reopened = await openStateStore(path, { readOnly: true });
    const state = stateFromStore(reopened);
    await reopened.close();
    expect(state.assets["a1"]?.routeValues).toEqual({
      "asset.environment": "prod",
      "asset.tags": ["pci", "web"],
    });
    expect(state.assets["a2"]).toEqual({ name: "www", type: "domain", deleted: false, updatedAt: "u1" });
    expect(state.assets["a3"]?.routeValues).toBeUndefined();
  });
});
