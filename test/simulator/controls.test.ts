import { describe, expect, test } from "vitest";
import { asRecord, simulatorPerTest } from "./helpers.js";

const open = simulatorPerTest();

describe("Simulator controls (/_sim)", () => {
  test("POST /_sim/threats answers 201 with the created threat, which then arrives on the stream", async () => {
    const api = await open();
    const assetId = api.sim.sim.assetIds()[8] ?? "";
    const { lastCursor } = await api.walk("/v1/threats");
    const created = await api.call("POST", "/_sim/threats", {
      token: null,
      body: {
        asset_id: assetId,
        severity: "critical",
        module: "web",
        name: "Exposed <b>admin</b> panel",
        status: "unsolved",
      },
    });
    expect(created.status).toBe(201);
    const threat = asRecord(created.body);
    expect(threat).toMatchObject({
      asset_id: assetId,
      severity: "critical",
      module: "web",
      name: "Exposed <b>admin</b> panel",
    });
    const next = await api.walk("/v1/threats", { cursor: lastCursor });
    expect(next.items.map((item) => item["id"])).toEqual([threat["id"]]);
  });

  test("POST /_sim/threats with an empty body generates every field; bad fields answer 422, an unknown asset 404", async () => {
    const api = await open();
    const created = await api.call("POST", "/_sim/threats", { token: null });
    expect(created.status).toBe(201);
    expect(asRecord(created.body)["status"]).toBe("unsolved");
    api.problem(
      await api.call("POST", "/_sim/threats", { token: null, body: { severity: "huge" } }),
      "request/validation",
      422,
    );
    api.problem(
      await api.call("POST", "/_sim/threats", { token: null, body: { colour: "red" } }),
      "request/validation",
      422,
    );
    const unknownAsset = { asset_id: "0b7e3f52-6a1d-4c8e-9f00-123456789abc" };
    api.problem(
      await api.call("POST", "/_sim/threats", { token: null, body: unknownAsset }),
      "resource/not-found",
      404,
    );
  });

  test("POST /_sim/scan with the default random outcome resolves every pending threat, deterministically per seed", async () => {
    const a = await open({ seed: 3 });
    const b = await open({ seed: 3 });
    const first = asRecord((await a.call("POST", "/_sim/scan", { token: null })).body);
    const second = asRecord((await b.call("POST", "/_sim/scan", { token: null })).body);
    expect(first).toEqual(second);
    expect(first["pending"]).toBeGreaterThan(0);
    expect(a.sim.sim.state().statuses["pending"]).toBeUndefined();
    a.problem(
      await a.call("POST", "/_sim/scan", { token: null, body: { outcome: "maybe" } }),
      "request/validation",
      422,
    );
  });

  test("POST /_sim/faults sets fault injection and {} clears it; unknown knobs answer 422", async () => {
    const api = await open();
    const set = await api.call("POST", "/_sim/faults", { token: null, body: { rate_500: 1 } });
    expect(set.body).toEqual({ rate_500: 1 });
    expect((await api.call("GET", "/v1/threats")).status).toBe(500);
    expect((await api.call("POST", "/_sim/faults", { token: null, body: {} })).body).toEqual({});
    expect((await api.call("GET", "/v1/threats")).status).toBe(200);
    api.problem(
      await api.call("POST", "/_sim/faults", { token: null, body: { rate_418: 1 } }),
      "request/validation",
      422,
    );
    api.problem(
      await api.call("POST", "/_sim/faults", { token: null, body: { rate_429: 2 } }),
      "request/validation",
      422,
    );
  });

  test("token_rate_500 makes the token endpoint fail with an RFC 6749 style body", async () => {
    const api = await open();
    api.sim.sim.setFaults({ token_rate_500: 1 });
    const answer = await fetch(`${api.sim.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials&client_id=threatbridge&client_secret=threatbridge-secret",
    });
    expect(answer.status).toBe(500);
    expect(asRecord(await answer.json())["error"]).toBe("server_error");
  });

  test("PATCH /_sim/threats/{id} is a platform-side change: updated_at bumped, re-delivered", async () => {
    const api = await open();
    const id = api.sim.sim.threatIds()[9] ?? "";
    const { lastCursor } = await api.walk("/v1/threats");
    const changed = await api.call("PATCH", `/_sim/threats/${id}`, {
      token: null,
      body: { severity: "critical", status: "unsolved" },
    });
    expect(asRecord(changed.body)).toMatchObject({ id, severity: "critical", status: "unsolved" });
    const next = await api.walk("/v1/threats", { cursor: lastCursor });
    expect(next.items.map((item) => item["id"])).toEqual([id]);
    expect(asRecord((await api.call("GET", `/_sim/threats/${id}`, { token: null })).body)["severity"]).toBe(
      "critical",
    );
  });

  test("GET /_sim/state and sim.stats() count assets, threats, token requests and requests per route", async () => {
    const api = await open();
    await api.call("GET", "/v1/threats?limit=1");
    await api.call("GET", "/v1/threats?limit=1");
    const state = asRecord((await api.call("GET", "/_sim/state", { token: null })).body);
    expect(state).toMatchObject({ assets: 40, threats: 150, visibleThreats: 150, removedAssets: 0 });
    const stats = api.sim.sim.stats();
    expect(stats.tokenRequests).toBe(1);
    expect(stats.byRoute["GET /v1/threats"]).toBe(2);
    expect(stats.byRoute["POST /oauth/token"]).toBe(1);
  });
});
