import { afterEach, describe, expect, it } from "vitest";
import { PlatformNetworkError, PlatformProblem } from "../../src/platform/index.js";
import { backoffMs } from "../../src/platform/retry-policy.js";
import { startFakePlatform, type FakePlatform } from "./fake-platform.js";
import { THREAT_ID, harness, rejection, threat, type Harness } from "./client-harness.js";

let fake: FakePlatform | undefined;
let h: Harness | undefined;

async function setup(
  overrides: Parameters<typeof harness>[1] = {},
): Promise<{ f: FakePlatform; h: Harness }> {
  fake = await startFakePlatform();
  fake.threats.set(THREAT_ID, threat(THREAT_ID));
  h = harness(fake, overrides);
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

const GET_THREAT = `GET /v1/threats/${THREAT_ID}`;

describe("platform HTTP retries (spec: Errors, Retry safety of writes)", () => {
  it("Errors rule 1: a 429 is retried after exactly the Retry-After seconds", async () => {
    const { f, h } = await setup();
    f.fault(GET_THREAT, { status: 429, retryAfter: "7" }, { status: 429, retryAfter: "1" });
    expect((await h.client.getThreat(THREAT_ID))?.id).toBe(THREAT_ID);
    expect(h.sleeps).toEqual([7000, 1000]);
    expect(f.requests).toHaveLength(3);
    expect(h.client.stats()).toMatchObject({ requests: 3, retries: 2, tokenRequests: 1 });
  });

  it("a 429 asking for longer than maxRetryAfterMs fails at once rather than stalling", async () => {
    const { f, h } = await setup({ maxRetryAfterMs: 60_000 });
    f.fault(GET_THREAT, { status: 429, retryAfter: "3600" });
    const err = await rejection(h.client.getThreat(THREAT_ID), PlatformProblem);
    expect(err.status).toBe(429);
    expect(h.sleeps).toEqual([]);
  });

  it("5xx answers and connection resets are retried with growing, capped, jittered waits", async () => {
    const { f, h } = await setup({ maxRetries: 8 });
    f.fault(
      GET_THREAT,
      { status: 500 },
      { status: 503 },
      "reset",
      { status: 502 },
      "reset",
      { status: 500 },
      { status: 500 },
    );
    expect((await h.client.getThreat(THREAT_ID))?.id).toBe(THREAT_ID);
    // random() is 0.5: each wait is 3/4 of the exponential step, and the step stops at 30 s.
    expect(h.sleeps).toEqual([188, 375, 750, 1500, 3000, 6000, 12000]);
    expect(f.requests).toHaveLength(8);
  });

  it("gives up after maxRetries and surfaces the last answer", async () => {
    const { f, h } = await setup({ maxRetries: 2 });
    f.fault(GET_THREAT, { status: 500 }, { status: 500 }, { status: 500 });
    const err = await rejection(h.client.getThreat(THREAT_ID), PlatformProblem);
    expect(err.status).toBe(500);
    expect(f.requests).toHaveLength(3);
  });

  it("/metrics' platform requests: each attempt counted by method and status, a dropped connection as error", async () => {
    const { f, h } = await setup({ maxRetries: 3 });
    f.fault(GET_THREAT, { status: 503 }, "reset");
    expect((await h.client.getThreat(THREAT_ID))?.id).toBe(THREAT_ID);
    const counts = h.client.stats().byOutcome;
    expect(counts).toEqual(
      expect.arrayContaining([
        { method: "GET", status: "503", count: 1 },
        { method: "GET", status: "error", count: 1 },
        { method: "GET", status: "200", count: 1 },
      ]),
    );
    // The labelled counts add up to the attempts sent.
    expect(counts.reduce((n, c) => n + c.count, 0)).toBe(h.client.stats().requests);
  });

  it("a connection that keeps dropping ends in PlatformNetworkError", async () => {
    const { f, h } = await setup({ maxRetries: 1 });
    f.fault(GET_THREAT, "reset", "reset");
    const err = await rejection(h.client.getThreat(THREAT_ID), PlatformNetworkError);
    expect(err.code).toBe("platform_network");
    expect(err.path).toBe(`/v1/threats/${THREAT_ID}`);
    expect(f.requests).toHaveLength(2);
  });

  it.each([400, 403, 404, 422])("a %i is not retried", async (status) => {
    const { f, h } = await setup();
    f.fault(GET_THREAT, { status, body: { type: `${f.url}/errors/x/y`, status } });
    const err = await rejection(h.client.getThreat(THREAT_ID), PlatformProblem);
    expect(err.status).toBe(status);
    expect(f.requests).toHaveLength(1);
    expect(h.sleeps).toEqual([]);
  });

  it("Retry safety of writes: PATCH, update-note and PUT external-references are replayed after 429/5xx/reset", async () => {
    const { f, h } = await setup();
    const base = `/v1/threats/${THREAT_ID}`;
    f.fault(`PATCH ${base}`, { status: 500 }, "reset");
    f.fault(`POST ${base}/update-note`, { status: 429, retryAfter: "2" });
    f.fault(`PUT ${base}/external-references/github`, { status: 503 });
    const updated = await h.client.setStatus(THREAT_ID, "accepted", "risk owned by team A");
    await h.client.updateNote(THREAT_ID, "hello");
    await h.client.putExternalReference(THREAT_ID, "github", {
      external_id: "acme/sec#1",
      url: "https://gh/1",
    });
    expect(updated.status).toBe("accepted");
    const stored = f.threats.get(THREAT_ID);
    expect(stored?.["note"]).toBe("hello");
    expect(stored?.["external_references"]).toEqual([
      { system: "github", external_id: "acme/sec#1", url: "https://gh/1", linked_at: "2026-01-01T00:00:00Z" },
    ]);
    expect(f.requests).toHaveLength(7);
    expect(h.sleeps).toEqual([188, 375, 2000, 188]);
  });

  it("writes answered 422 or 400 are not replayed", async () => {
    const { f, h } = await setup();
    await rejection(h.client.setStatus(THREAT_ID, "accepted"), PlatformProblem).then((e) => {
      expect(e.type).toBe("request/validation");
    });
    expect(f.requests).toHaveLength(1);
  });
});

describe("backoff arithmetic", () => {
  it("never exceeds the cap and never drops to zero", () => {
    for (let attempt = 0; attempt < 60; attempt++) {
      for (const r of [0, 0.3, 0.999, 1]) {
        const ms = backoffMs(attempt, () => r);
        expect(ms).toBeGreaterThan(0);
        expect(ms).toBeLessThanOrEqual(30_000);
      }
    }
  });
});
