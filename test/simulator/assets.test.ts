import { describe, expect, test } from "vitest";
import { asRecord, simulatorPerTest, type Api } from "./helpers.js";

const open = simulatorPerTest();
const UNKNOWN = "0b7e3f52-6a1d-4c8e-9f00-123456789abc";

async function assetWithThreats(api: Api): Promise<{ assetId: string; threatIds: string[] }> {
  const { items } = await api.walk("/v1/threats");
  const byAsset = new Map<string, string[]>();
  for (const item of items)
    byAsset.set(String(item["asset_id"]), [
      ...(byAsset.get(String(item["asset_id"])) ?? []),
      String(item["id"]),
    ]);
  const [assetId, threatIds] = [...byAsset.entries()].sort((a, b) => b[1].length - a[1].length)[0] ?? [
    "",
    [],
  ];
  return { assetId, threatIds };
}

async function related(api: Api, id: string): Promise<string[]> {
  return (await api.walk(`/v1/assets/${id}/related`)).items.map((item) => String(item["id"]));
}

describe("Asset lifecycle", () => {
  test("Asset lifecycle row 1: removal delivers one tombstone on GET /v1/assets and its threats leave the API", async () => {
    const api = await open();
    const { assetId, threatIds } = await assetWithThreats(api);
    const assetsCursor = (await api.walk("/v1/assets")).lastCursor;
    const removed = await api.call("POST", `/_sim/assets/${assetId}/remove`, { token: null });
    expect(asRecord(removed.body)).toMatchObject({ id: assetId, deleted: true });
    const changes = await api.walk("/v1/assets", { cursor: assetsCursor });
    expect(changes.items).toHaveLength(1);
    expect(changes.items[0]).toMatchObject({ id: assetId, deleted: true });
    expect(typeof changes.items[0]?.["deleted_at"]).toBe("string");
    const threats = (await api.walk("/v1/threats")).items.map((item) => item["id"]);
    for (const id of threatIds) {
      expect(threats).not.toContain(id);
      api.problem(await api.call("GET", `/v1/threats/${id}`), "resource/not-found", 404);
      api.problem(
        await api.call("PATCH", `/v1/threats/${id}`, { body: { status: "unsolved" } }),
        "resource/not-found",
        404,
      );
      api.problem(
        await api.call("POST", `/v1/threats/${id}/update-note`, { body: { note: "n" } }),
        "resource/not-found",
        404,
      );
    }
    expect(api.sim.sim.getThreat(threatIds[0] ?? "")).not.toBeNull();
  });

  test("GET /v1/assets/{id}: a removed asset is returned too, flagged with deleted and deleted_at", async () => {
    const api = await open();
    const id = api.sim.sim.assetIds()[3] ?? "";
    api.sim.sim.removeAsset(id);
    const body = asRecord((await api.call("GET", `/v1/assets/${id}`)).body);
    expect(body).toMatchObject({ id, deleted: true, stream_position: null });
    expect(typeof body["deleted_at"]).toBe("string");
  });

  test("Asset lifecycle row 2: restore delivers the asset again with deleted false and its threats come back", async () => {
    const api = await open();
    const { assetId, threatIds } = await assetWithThreats(api);
    api.sim.sim.removeAsset(assetId);
    const assetsCursor = (await api.walk("/v1/assets")).lastCursor;
    const threatsCursor = (await api.walk("/v1/threats")).lastCursor;
    expect((await api.call("POST", `/_sim/assets/${assetId}/restore`, { token: null })).status).toBe(200);
    const assets = await api.walk("/v1/assets", { cursor: assetsCursor });
    expect(assets.items).toMatchObject([{ id: assetId, deleted: false, deleted_at: null }]);
    const threats = await api.walk("/v1/threats", { cursor: threatsCursor });
    expect(threats.items.map((item) => item["id"]).sort()).toEqual([...threatIds].sort());
    expect((await api.call("GET", `/v1/threats/${threatIds[0] ?? ""}`)).status).toBe(200);
  });

  test("Asset lifecycle: an asset created and removed between two polls arrives as a tombstone only", async () => {
    const api = await open();
    const { lastCursor } = await api.walk("/v1/assets");
    const tenant = api.sim.sim.assetIds()[0] ?? "";
    const created = await api.call("POST", "/_sim/assets", {
      token: null,
      body: { type: "account", name: "new.hire@acme-corp.example", related_to: [tenant] },
    });
    expect(created.status).toBe(201);
    const id = String(asRecord(created.body)["id"]);
    expect(await related(api, tenant)).toContain(id);
    api.sim.sim.removeAsset(id);
    const changes = await api.walk("/v1/assets", { cursor: lastCursor });
    expect(changes.items).toMatchObject([{ id, deleted: true, name: "new.hire@acme-corp.example" }]);
  });

  test("Asset lifecycle: removing or restoring an unknown asset through /_sim answers 404", async () => {
    const api = await open();
    api.problem(
      await api.call("POST", `/_sim/assets/${UNKNOWN}/remove`, { token: null }),
      "resource/not-found",
      404,
    );
    api.problem(
      await api.call("POST", `/_sim/assets/${UNKNOWN}/restore`, { token: null }),
      "resource/not-found",
      404,
    );
  });

  test("GET /v1/assets/{id}: a bare object with the list item's fields and stream_position null", async () => {
    const api = await open();
    const page = await api.page("/v1/assets?limit=1");
    const item = page.items[0] ?? {};
    const single = asRecord((await api.call("GET", `/v1/assets/${String(item["id"])}`)).body);
    expect(single).toEqual({ ...item, stream_position: null });
  });
});

describe("GET /v1/assets/{asset_id}/related", () => {
  test("Related assets rule 1: relations are symmetric", async () => {
    const api = await open();
    let checked = 0;
    for (const id of api.sim.sim.assetIds()) {
      for (const other of await related(api, id)) {
        expect(await related(api, other)).toContain(id);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(10);
  });

  test("Related assets rule 2: the asset itself is never included", async () => {
    const api = await open();
    for (const id of api.sim.sim.assetIds()) expect(await related(api, id)).not.toContain(id);
  });

  test("Related assets rule 3: removed assets are not listed and no tombstones are emitted", async () => {
    const api = await open();
    const tenant = (await api.walk("/v1/assets")).items.find((item) => item["type"] === "tenant");
    const id = String(tenant?.["id"]);
    const [neighbour] = await related(api, id);
    expect(neighbour).toBeDefined();
    api.sim.sim.removeAsset(neighbour ?? "");
    const items = (await api.walk(`/v1/assets/${id}/related`)).items;
    expect(items.map((item) => item["id"])).not.toContain(neighbour);
    expect(items.every((item) => item["deleted"] === false)).toBe(true);
  });

  test("Related assets rule 4: an existing asset without relations returns an empty assets array", async () => {
    const api = await open();
    const lonely = (await api.walk("/v1/assets")).items.find((item) => item["type"] === "repository");
    const answer = await api.call("GET", `/v1/assets/${String(lonely?.["id"])}/related`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ assets: [], pagination: { next_cursor: null, page_size: 0 } });
  });

  test("Related assets rule 5: an unknown asset answers 404 on the first request only; with a cursor an empty page", async () => {
    const api = await open();
    api.problem(await api.call("GET", `/v1/assets/${UNKNOWN}/related`), "resource/not-found", 404);
    const tenant = (await api.walk("/v1/assets")).items.find((item) => item["type"] === "tenant");
    const first = await api.page(`/v1/assets/${String(tenant?.["id"])}/related?limit=1`);
    expect(first.next).not.toBeNull();
    const mid = await api.page(
      `/v1/assets/${UNKNOWN}/related?cursor=${encodeURIComponent(first.next ?? "")}`,
    );
    expect(mid).toEqual({ items: [], next: null, pageSize: 0 });
  });

  test("Related assets: same envelope and pagination (limit, cursor, page_size)", async () => {
    const api = await open();
    const tenant = (await api.walk("/v1/assets")).items.find((item) => item["type"] === "tenant");
    const all = await related(api, String(tenant?.["id"]));
    const walked = await api.walk(`/v1/assets/${String(tenant?.["id"])}/related`, { limit: 1 });
    expect(walked.items.map((item) => item["id"])).toEqual(all);
    expect(walked.pages).toBe(all.length + 1);
    api.problem(
      await api.call("GET", `/v1/assets/${String(tenant?.["id"])}/related?limit=0`),
      "request/invalid-limit",
      400,
    );
  });
});

describe("GET /v1/assets/{id}/threats (referred to elsewhere)", () => {
  test("lists the asset's live threats in the threats envelope; none once the asset is removed", async () => {
    const api = await open();
    const { assetId, threatIds } = await assetWithThreats(api);
    const listed = await api.walk(`/v1/assets/${assetId}/threats`, { limit: 2 });
    expect(listed.items.map((item) => item["id"]).sort()).toEqual([...threatIds].sort());
    api.sim.sim.removeAsset(assetId);
    expect((await api.walk(`/v1/assets/${assetId}/threats`)).items).toEqual([]);
    api.problem(await api.call("GET", `/v1/assets/${UNKNOWN}/threats`), "resource/not-found", 404);
  });
});
