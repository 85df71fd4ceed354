import { describe, expect, test } from "vitest";
import { asRecord, simulatorPerTest } from "./helpers.js";

const open = simulatorPerTest();

describe("Errors", () => {
  test("What the service does 3: every response carries X-Request-ID (API, errors, token endpoint, /_sim)", async () => {
    const api = await open();
    const answers = [
      await api.call("GET", "/v1/threats?limit=2"),
      await api.call("GET", "/v1/threats", { token: null }),
      await api.call("GET", "/nowhere", { token: null }),
      await api.call("POST", "/_sim/scan", { token: null }),
      await api.call("GET", "/_sim/state", { token: null }),
    ];
    const token = await fetch(`${api.sim.url}/oauth/token`, {
      method: "POST",
      body: "grant_type=client_credentials",
    });
    const ids = [...answers.map((a) => a.headers.get("x-request-id")), token.headers.get("x-request-id")];
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test("Errors: every error is application/problem+json with type {base_url}/errors/<suffix>, title, status, detail, instance", async () => {
    const api = await open();
    const answer = await api.call("GET", "/v1/threats/00000000-0000-4000-8000-000000000000");
    const problem = api.problem(answer, "resource/not-found", 404);
    expect(problem).toMatchObject({
      status: 404,
      instance: "/v1/threats/00000000-0000-4000-8000-000000000000",
    });
    expect(problem.title.length).toBeGreaterThan(0);
    expect(problem.detail.length).toBeGreaterThan(0);
  });

  test("What the service does 2 / Versioning 2: bodies are application/json; unknown query parameters are ignored", async () => {
    const api = await open();
    const answer = await api.call("GET", "/v1/threats?limit=3&sort=updated_at&include=everything");
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe("application/json");
    expect((await api.page("/v1/threats?limit=3&sort=updated_at")).pageSize).toBe(3);
  });

  test("Errors: an unknown endpoint answers 404 path/not-allowlisted", async () => {
    const api = await open();
    api.problem(await api.call("GET", "/v2/threats"), "path/not-allowlisted", 404);
    api.problem(await api.call("DELETE", "/v1/threats"), "path/not-allowlisted", 404);
    api.problem(await api.call("GET", "/v1/threats/"), "path/not-allowlisted", 404);
  });

  test("What the service does 4: a path id that is not a UUID answers 400 request/invalid-filter", async () => {
    const api = await open();
    const calls = [
      api.call("GET", "/v1/threats/not-a-uuid"),
      api.call("GET", "/v1/assets/12345"),
      api.call("GET", "/v1/assets/12345/related"),
      api.call("PATCH", "/v1/threats/xyz", { body: { status: "unsolved" } }),
      api.call("POST", "/v1/threats/xyz/update-note", { body: { note: "n" } }),
      api.call("PUT", "/v1/threats/xyz/external-references/github", { body: { external_id: "a", url: "b" } }),
    ];
    for (const answer of await Promise.all(calls)) api.problem(answer, "request/invalid-filter", 400);
  });

  test("What the service does 1: an id of no resource of the organization answers 404 resource/not-found", async () => {
    const api = await open();
    const unknown = "6f1c2b9e-2f55-4d0a-9d59-3a0e4f1b2c3d";
    api.problem(await api.call("GET", `/v1/threats/${unknown}`), "resource/not-found", 404);
    api.problem(await api.call("GET", `/v1/assets/${unknown}`), "resource/not-found", 404);
    api.problem(
      await api.call("PATCH", `/v1/threats/${unknown}`, { body: { status: "unsolved" } }),
      "resource/not-found",
      404,
    );
  });

  test("Errors rule 1: a 429 carries an integer Retry-After >= 1", async () => {
    const api = await open();
    api.sim.sim.setFaults({ rate_429: 1, retry_after_seconds: 2 });
    const answer = await api.call("GET", "/v1/threats");
    api.problem(answer, "rate-limit/exceeded", 429);
    const retryAfter = answer.headers.get("retry-after") ?? "";
    expect(retryAfter).toMatch(/^[0-9]+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    api.sim.sim.setFaults({});
    expect((await api.call("GET", "/v1/threats")).status).toBe(200);
  });

  test("Errors: a 500 server/internal-error on a write writes nothing", async () => {
    const api = await open();
    const id = api.sim.sim.threatIds()[5] ?? "";
    const before = api.sim.sim.getThreat(id);
    api.sim.sim.setFaults({ rate_500: 1 });
    api.problem(
      await api.call("PATCH", `/v1/threats/${id}`, { body: { status: "false_positive" } }),
      "server/internal-error",
      500,
    );
    api.problem(
      await api.call("POST", `/v1/threats/${id}/update-note`, { body: { note: "lost" } }),
      "server/internal-error",
      500,
    );
    api.sim.sim.settle();
    expect(api.sim.sim.getThreat(id)).toEqual(before);
  });

  test("PATCH rule 5: rate_500_after_write applies the write, answers 500, and a re-send reaches the same end state", async () => {
    const api = await open();
    const id = api.sim.sim.threatIds()[5] ?? "";
    api.sim.sim.setFaults({ rate_500_after_write: 1 });
    api.problem(
      await api.call("PATCH", `/v1/threats/${id}`, { body: { status: "false_positive" } }),
      "server/internal-error",
      500,
    );
    expect(api.sim.sim.getThreat(id)?.status).toBe("false_positive");
    api.sim.sim.setFaults({});
    const again = await api.call("PATCH", `/v1/threats/${id}`, { body: { status: "false_positive" } });
    expect(asRecord(again.body)["status"]).toBe("false_positive");
  });

  test("Errors rule 3: limit outside 1..500 answers 400 (request/invalid-limit), never clamped", async () => {
    const api = await open();
    for (const limit of ["0", "501", "-1", "abc", "1.5", ""]) {
      for (const path of ["/v1/threats", "/v1/assets"]) {
        api.problem(await api.call("GET", `${path}?limit=${limit}`), "request/invalid-limit", 400);
      }
    }
    const page = await api.page("/v1/threats?limit=500");
    expect(page.pageSize).toBe(150);
  });

  test("Errors: faults never touch /_sim or the token endpoint", async () => {
    const api = await open();
    api.sim.sim.setFaults({ rate_500: 1 });
    expect((await api.call("GET", "/_sim/state", { token: null })).status).toBe(200);
    expect(typeof (await api.token())).toBe("string");
  });
});
