import { describe, expect, test } from "vitest";
import { asRecord, manualClock, simulatorPerTest } from "./helpers.js";

const open = simulatorPerTest();
const form = "application/x-www-form-urlencoded";

async function tokenRequest(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${url}/oauth/token`, { method: "POST", headers: { "content-type": form, ...headers }, body });
}

describe("Authentication", () => {
  test("Authentication 1: client credentials with HTTP Basic answer a Bearer token with expires_in", async () => {
    const api = await open();
    const basic = Buffer.from("threatbridge:threatbridge-secret").toString("base64");
    const answer = await tokenRequest(api.sim.url, "grant_type=client_credentials&scope=read", {
      authorization: `Basic ${basic}`,
    });
    expect(answer.status).toBe(200);
    const body = asRecord(await answer.json());
    expect(body["token_type"]).toBe("Bearer");
    expect(body["expires_in"]).toBe(300);
    expect(typeof body["access_token"]).toBe("string");
    expect(answer.headers.get("x-request-id")).toBeTruthy();
  });

  test("Authentication 1: client credentials as form fields work too, audience accepted", async () => {
    const api = await open();
    const answer = await tokenRequest(
      api.sim.url,
      "grant_type=client_credentials&client_id=threatbridge&client_secret=threatbridge-secret&audience=api",
    );
    expect(answer.status).toBe(200);
    expect(asRecord(await answer.json())["token_type"]).toBe("Bearer");
  });

  test("Authentication 1: a wrong secret answers 401 invalid_client (RFC 6749)", async () => {
    const api = await open();
    const answer = await tokenRequest(
      api.sim.url,
      "grant_type=client_credentials&client_id=threatbridge&client_secret=nope",
    );
    expect(answer.status).toBe(401);
    expect(asRecord(await answer.json())["error"]).toBe("invalid_client");
  });

  test("Authentication 1: only the client credentials grant is offered", async () => {
    const api = await open();
    const answer = await tokenRequest(
      api.sim.url,
      "grant_type=password&client_id=threatbridge&client_secret=threatbridge-secret",
    );
    expect(answer.status).toBe(400);
    expect(asRecord(await answer.json())["error"]).toBe("unsupported_grant_type");
  });

  test("Authentication 2: a token from the token endpoint opens the API", async () => {
    const api = await open();
    const token = await api.token();
    const answer = await api.call("GET", "/v1/threats?limit=1", { token });
    expect(answer.status).toBe(200);
    expect(api.sim.sim.stats().tokenRequests).toBe(1);
  });

  test("Authentication 3: a token expires after its lifetime and a new one works", async () => {
    const clock = manualClock();
    const api = await open({ clock, tokenTtlSeconds: 60 });
    const token = await api.token();
    expect((await api.call("GET", "/v1/assets?limit=1", { token })).status).toBe(200);
    clock.advance(60_000);
    const expired = await api.call("GET", "/v1/assets?limit=1", { token });
    const problem = api.problem(expired, "auth/invalid-token", 401);
    expect(problem.detail).toContain("expired");
    expect(expired.headers.get("www-authenticate")).toContain("Bearer");
    const renewed = await api.token();
    expect((await api.call("GET", "/v1/assets?limit=1", { token: renewed })).status).toBe(200);
  });

  test("Authentication 3: an unknown token answers 401 auth/invalid-token", async () => {
    const api = await open();
    const answer = await api.call("GET", "/v1/threats", { token: "made-up" });
    api.problem(answer, "auth/invalid-token", 401);
  });

  test("Authentication 3: revoked tokens (POST /_sim/tokens/revoke) answer 401", async () => {
    const api = await open();
    const token = await api.token();
    expect((await api.call("POST", "/_sim/tokens/revoke", { token: null })).status).toBe(204);
    api.problem(await api.call("GET", "/v1/threats", { token }), "auth/invalid-token", 401);
  });

  test("Authentication 4: missing Authorization answers 401 auth/missing-token", async () => {
    const api = await open();
    for (const path of ["/v1/threats", "/v1/assets", `/v1/threats/${api.sim.sim.threatIds()[0] ?? ""}`]) {
      const problem = api.problem(await api.call("GET", path, { token: null }), "auth/missing-token", 401);
      expect(problem.instance).toBe(path);
    }
  });

  test("Authentication 5: a read-only token reads but every write answers 403 auth/insufficient-role with nothing written", async () => {
    const api = await open();
    const reader = await api.token("threatbridge-readonly", "threatbridge-readonly-secret");
    const id = api.sim.sim.threatIds()[1] ?? "";
    const before = api.sim.sim.getThreat(id);
    expect((await api.call("GET", `/v1/threats/${id}`, { token: reader })).status).toBe(200);
    const writes = [
      api.call("PATCH", `/v1/threats/${id}`, { token: reader, body: { status: "false_positive" } }),
      api.call("POST", `/v1/threats/${id}/update-note`, { token: reader, body: { note: "x" } }),
      api.call("PUT", `/v1/threats/${id}/external-references/github`, {
        token: reader,
        body: { external_id: "acme/x#1", url: "https://example.test/1" },
      }),
    ];
    for (const answer of await Promise.all(writes)) api.problem(answer, "auth/insufficient-role", 403);
    api.sim.sim.settle();
    expect(api.sim.sim.getThreat(id)).toEqual(before);
  });
});
