import { afterEach, describe, expect, it } from "vitest";
import {
  PlatformDeferredError,
  PlatformProblem,
  PlatformTokenError,
  classifyNetworkError,
} from "../../src/platform/index.js";
import { startFakePlatform, type FakePlatform } from "./fake-platform.js";
import { THREAT_ID, harness, rejection, threat, type Harness } from "./client-harness.js";

/** Never ask before the platform said you may (spec "Errors" rule 1). Fake clock. */

let fake: FakePlatform | undefined;
const harnesses: Harness[] = [];

async function setup(opts: Parameters<typeof startFakePlatform>[0] = {}): Promise<FakePlatform> {
  fake = await startFakePlatform(opts);
  fake.threats.set(THREAT_ID, threat(THREAT_ID));
  return fake;
}

function track(h: Harness): Harness {
  harnesses.push(h);
  return h;
}

afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.client.close();
  if (fake !== undefined) {
    expect(fake.unexpected).toEqual([]);
    await fake.close();
    fake = undefined;
  }
});

const GET_THREAT = `GET /v1/threats/${THREAT_ID}`;

async function pagesOf<T>(pages: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const page of pages) out.push(page);
  return out;
}

describe("Retry-After gate (spec: Errors rule 1)", () => {
  it("a Retry-After longer than maxRetryAfterMs holds back every later request of the client until it passes", async () => {
    const f = await setup();
    const h = track(harness(f, { maxRetryAfterMs: 60_000 }));
    f.fault(GET_THREAT, { status: 429, retryAfter: "600" });
    await rejection(h.client.getThreat(THREAT_ID), PlatformProblem);
    const sent = f.requests.length;
    // Another request, another path: not sent at all.
    const deferred = await rejection(h.client.getAsset(THREAT_ID), PlatformDeferredError);
    expect(deferred.code).toBe("platform_deferred");
    expect(deferred.notBefore).toBe(h.clock.now() + 600_000);
    expect(deferred.message).toMatch(/not to be called before/);
    expect(classifyNetworkError(deferred).kind).toBe("rate_limited");
    expect(f.requests.length).toBe(sent);
    h.clock.advance(500_000);
    await rejection(h.client.getThreat(THREAT_ID), PlatformDeferredError);
    expect(f.requests.length).toBe(sent);
    // 40 s left, within maxRetryAfterMs: the request waits them out, then goes.
    h.clock.advance(60_000);
    expect((await h.client.getThreat(THREAT_ID))?.id).toBe(THREAT_ID);
    expect(h.sleeps).toEqual([40_000]);
  });

  it("a short Retry-After is waited out once, through the gate; the next request goes at once", async () => {
    const f = await setup();
    const h = track(harness(f));
    f.fault(GET_THREAT, { status: 429, retryAfter: "5" });
    await h.client.getThreat(THREAT_ID);
    expect(h.sleeps).toEqual([5000]);
    // The gate is passed now: a later request does not wait again.
    await h.client.getThreat(THREAT_ID);
    expect(h.sleeps).toEqual([5000]);
  });

  it("across processes: the instant is reported through onNotBefore and honoured by a new client given it", async () => {
    const f = await setup();
    const saved: number[] = [];
    const first = track(harness(f, { maxRetryAfterMs: 60_000, onNotBefore: (at) => void saved.push(at) }));
    f.fault(GET_THREAT, { status: 429, retryAfter: "600" });
    await rejection(first.client.getThreat(THREAT_ID), PlatformProblem);
    expect(saved).toEqual([first.clock.now() + 600_000]);
    const sent = f.requests.length;
    const tokensSent = f.tokenRequests.length;
    const second = track(harness(f, { maxRetryAfterMs: 60_000, notBefore: saved[0] }));
    await rejection(second.client.getThreat(THREAT_ID), PlatformDeferredError);
    // No request at all, not even for a token.
    expect(f.requests.length).toBe(sent);
    expect(f.tokenRequests.length).toBe(tokensSent);
  });

  it("while the Retry-After holds, a stream walk sends nothing and delivers no page; stats() says until when", async () => {
    const f = await setup();
    const h = track(harness(f, { maxRetryAfterMs: 60_000 }));
    f.fault("GET /v1/threats", { status: 429, retryAfter: "600" });
    await expect(pagesOf(h.client.streamThreats(null))).rejects.toBeInstanceOf(PlatformProblem);
    const sent = f.requests.length;
    expect(await pagesOf(h.client.streamThreats(null))).toEqual([]);
    expect(f.requests.length).toBe(sent);
    expect(h.client.stats().notBefore).toBe(h.clock.now() + 600_000);
    h.clock.advance(600_000);
    expect(h.client.stats().notBefore).toBeUndefined();
    expect((await pagesOf(h.client.streamThreats(null))).length).toBeGreaterThan(0);
  });

  it("the token endpoint's Retry-After is honoured the same way", async () => {
    const f = await setup();
    const h = track(harness(f, { maxRetryAfterMs: 60_000 }));
    f.fault("POST /oauth/token", { status: 429, retryAfter: "900" });
    await rejection(h.client.getThreat(THREAT_ID), PlatformTokenError);
    expect(f.tokenRequests).toHaveLength(1);
    const err = await rejection(h.client.getThreat(THREAT_ID), PlatformDeferredError);
    expect(classifyNetworkError(err).kind).toBe("rate_limited");
    expect(f.tokenRequests).toHaveLength(1);
    h.clock.advance(900_000);
    expect((await h.client.getThreat(THREAT_ID))?.id).toBe(THREAT_ID);
  });
});

describe("refused credentials back off instead of asking on every tick", () => {
  it("after invalid_client the endpoint is not asked again for 30 s, then 60 s, growing; a success resets it", async () => {
    const f = await setup({ clientSecret: "right-secret" });
    const h = track(harness(f, { clientSecret: "wrong-secret" }));
    const first = await rejection(h.client.getThreat(THREAT_ID), PlatformTokenError);
    expect(first.kind).toBe("credentials");
    expect(classifyNetworkError(first).hint).toContain("client_secret");
    expect(f.tokenRequests).toHaveLength(1);
    // Ticks within the back-off send nothing.
    for (let i = 0; i < 5; i++) {
      h.clock.advance(5_000);
      const err = await rejection(h.client.getThreat(THREAT_ID), PlatformTokenError);
      expect(err.message).toMatch(/not asked again before/);
    }
    expect(f.tokenRequests).toHaveLength(1);
    h.clock.advance(5_000); // 30 s after the refusal
    await rejection(h.client.getThreat(THREAT_ID), PlatformTokenError);
    expect(f.tokenRequests).toHaveLength(2);
    h.clock.advance(59_000); // the second back-off is 60 s
    await rejection(h.client.getThreat(THREAT_ID), PlatformTokenError);
    expect(f.tokenRequests).toHaveLength(2);
    h.clock.advance(1_000);
    await rejection(h.client.getThreat(THREAT_ID), PlatformTokenError);
    expect(f.tokenRequests).toHaveLength(3);
  });
});
