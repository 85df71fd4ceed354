import { afterEach, describe, expect, it } from "vitest";
import {
  PlatformProblem,
  PlatformResponseError,
  createPlatformClient,
  problemTypeSuffix,
} from "../../src/platform/index.js";
import { createLogger } from "../../src/observability/index.js";
import { startFakePlatform, type FakePlatform } from "./fake-platform.js";
import { THREAT_ID, harness, rejection, threat, type Harness } from "./client-harness.js";

let fake: FakePlatform | undefined;
let h: Harness | undefined;

async function setup(): Promise<{ f: FakePlatform; h: Harness }> {
  fake = await startFakePlatform();
  fake.threats.set(THREAT_ID, threat(THREAT_ID));
  h = harness(fake);
  return { f: fake, h };
}

afterEach(async () => {
  await h?.client.close();
  h = undefined;
  if (fake !== undefined) {
    expect(fake.unexpected).toEqual([]);
    await fake.close();
    fake = undefined;
  }
});

describe("platform errors (spec: Errors)", () => {
  it("a problem+json answer becomes PlatformProblem with the type suffix, detail, instance and X-Request-ID", async () => {
    const { h } = await setup();
    const err = await rejection(
      h.client.setStatus(
        THREAT_ID,
        "pending" as never /* outside the type on purpose: the platform rule is under test */,
      ),
      PlatformProblem,
    );
    expect(err).toMatchObject({
      code: "platform_problem",
      type: "request/invalid-status-transition",
      status: 400,
      title: "request/invalid-status-transition",
      detail: "settable: ...",
      instance: `/v1/threats/${THREAT_ID}`,
      method: "PATCH",
      path: `/v1/threats/${THREAT_ID}`,
    });
    expect(err.requestId).toMatch(/^req-\d+$/);
    expect(err.message).toContain("request/invalid-status-transition");
  });

  it("messages and JSON of errors never hold the token, the secret or an Authorization header", async () => {
    const { f, h } = await setup();
    f.fault(`GET /v1/threats/${THREAT_ID}`, {
      status: 403,
      body: { type: `${f.url}/errors/auth/insufficient-role` },
    });
    const err = await rejection(h.client.getThreat(THREAT_ID), PlatformProblem);
    expect(err.type).toBe("auth/insufficient-role");
    const json = JSON.stringify(err);
    expect(JSON.parse(json)).toMatchObject({ method: "GET", path: `/v1/threats/${THREAT_ID}`, status: 403 });
    for (const text of [err.message, json, String(err.stack)]) {
      expect(text).not.toContain("tok-1");
      expect(text).not.toContain("s3cret-value");
      expect(text.toLowerCase()).not.toContain("authorization");
      expect(text).not.toContain("Bearer");
    }
  });

  it("debug logs of retries, 401 renewals and failures hold no token, secret or Authorization header", async () => {
    fake = await startFakePlatform();
    fake.threats.set(THREAT_ID, threat(THREAT_ID));
    const lines: string[] = [];
    const logger = createLogger({
      level: "debug",
      destination: { write: (line: string) => void lines.push(line) },
    });
    h = harness(fake, { logger });
    fake.fault(`GET /v1/threats/${THREAT_ID}`, { status: 401 }, { status: 429, retryAfter: "1" }, "reset", {
      status: 500,
    });
    fake.fault("POST /oauth/token", { status: 503 });
    await h.client.getThreat(THREAT_ID);
    const text = lines.join("\n");
    expect(lines.length).toBeGreaterThanOrEqual(4);
    expect(text).toContain(`/v1/threats/${THREAT_ID}`);
    for (const secret of ["tok-1", "tok-2", "s3cret-value", "Bearer", "Basic", "authorization"]) {
      expect(text).not.toContain(secret);
    }
  });

  it("rule 1 of the service: a missing threat (404 resource/not-found) reads as null", async () => {
    const { h } = await setup();
    expect(await h.client.getThreat("11111111-2222-4333-8444-555555555555")).toBeNull();
  });

  it("a 404 that is not resource/not-found is an error, not a missing resource", async () => {
    const { f, h } = await setup();
    f.fault(`GET /v1/threats/${THREAT_ID}`, {
      status: 404,
      body: { type: `${f.url}/errors/path/not-allowlisted` },
    });
    const err = await rejection(h.client.getThreat(THREAT_ID), PlatformProblem);
    expect(err.type).toBe("path/not-allowlisted");
  });

  it("path ids and the system are URL-encoded: a hostile id cannot reach another route", async () => {
    const { f, h } = await setup();
    const err = await rejection(h.client.getThreat("../assets/x?y"), PlatformProblem);
    expect(err.type).toBe("request/invalid-filter");
    expect(f.requests.at(-1)?.path).toBe("/v1/threats/..%2Fassets%2Fx%3Fy");
    await h.client.putExternalReference(THREAT_ID, "jira/eu west", {
      external_id: "SEC-1",
      url: "https://j/1",
    });
    expect(f.requests.at(-1)?.path).toBe(`/v1/threats/${THREAT_ID}/external-references/jira%2Feu%20west`);
  });

  it("a success answer that is not JSON, or not a threat, is PlatformResponseError", async () => {
    const { f, h } = await setup();
    f.fault(`GET /v1/threats/${THREAT_ID}`, { status: 200, body: "<html>", contentType: "text/html" });
    const notJson = await rejection(h.client.getThreat(THREAT_ID), PlatformResponseError);
    expect(notJson.code).toBe("platform_response_invalid");
    f.fault(`GET /v1/threats/${THREAT_ID}`, {
      status: 200,
      body: { id: "nope" },
      contentType: "application/json",
    });
    const notThreat = await rejection(h.client.getThreat(THREAT_ID), PlatformResponseError);
    expect(notThreat.message).toContain("id");
  });

  it("update-note rule 1: a 202 is success whatever its body says", async () => {
    const { f, h } = await setup();
    f.fault(`POST /v1/threats/${THREAT_ID}/update-note`, {
      status: 202,
      body: "Accepted",
      contentType: "text/plain",
    });
    await expect(h.client.updateNote(THREAT_ID, "n")).resolves.toBeUndefined();
  });

  it("an error body that is not problem+json still gives a PlatformProblem with the status", async () => {
    const { f, h } = await setup();
    f.fault(`GET /v1/threats/${THREAT_ID}`, { status: 418, body: "teapot", contentType: "text/plain" });
    const err = await rejection(h.client.getThreat(THREAT_ID), PlatformProblem);
    expect(err).toMatchObject({ status: 418, type: "about:blank", problem: undefined });
  });

  it("list limit outside 1..500 is refused when the client is made, never clamped", () => {
    const base = {
      baseUrl: "http://127.0.0.1:1",
      tokenUrl: "http://127.0.0.1:1/t",
      clientId: "a",
      clientSecret: "b",
    };
    for (const pageLimit of [0, 501, 2.5]) {
      expect(() => createPlatformClient({ ...base, tokenAuth: "client_secret_post", pageLimit })).toThrow(
        expect.objectContaining({ code: "platform_invalid_options" }),
      );
    }
  });

  it("the type suffix is what follows /errors/", () => {
    expect(problemTypeSuffix("https://api.example.com/errors/request/invalid-cursor")).toBe(
      "request/invalid-cursor",
    );
    expect(problemTypeSuffix("urn:other")).toBe("urn:other");
    expect(problemTypeSuffix(undefined)).toBe("about:blank");
  });
});
