import { afterEach, describe, expect, it } from "vitest";
import { PlatformProblem, PlatformTokenError } from "../../src/platform/index.js";
import { startFakePlatform, type FakePlatform } from "./fake-platform.js";
import { THREAT_ID, harness, rejection, threat } from "./client-harness.js";

let fake: FakePlatform | undefined;
const closers: (() => Promise<void>)[] = [];

async function setup(opts: Parameters<typeof startFakePlatform>[0] = {}): Promise<FakePlatform> {
  fake = await startFakePlatform(opts);
  fake.threats.set(THREAT_ID, threat(THREAT_ID));
  return fake;
}

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  if (fake !== undefined) {
    expect(fake.unexpected).toEqual([]);
    await fake.close();
    fake = undefined;
  }
});

function track<T extends { client: { close(): Promise<void> } }>(h: T): T {
  closers.push(() => h.client.close());
  return h;
}

describe("platform tokens (spec: Authentication)", () => {
  it("shares one token request among many concurrent callers (single flight)", async () => {
    const f = await setup();
    const { client } = track(harness(f));
    const results = await Promise.all(Array.from({ length: 20 }, () => client.getThreat(THREAT_ID)));
    expect(results.every((t) => t?.id === THREAT_ID)).toBe(true);
    expect(f.tokenRequests).toHaveLength(1);
    expect(client.stats().tokenRequests).toBe(1);
    expect(new Set(f.requests.map((r) => r.authorization))).toEqual(new Set(["Bearer tok-1"]));
  });

  it("renews the token ahead of expires_in, not after it", async () => {
    const f = await setup({ expiresIn: 300 });
    const { client, clock } = track(harness(f));
    await client.getThreat(THREAT_ID);
    clock.advance(265_000); // 30 s before expiry is 270 s: still the first token
    await client.getThreat(THREAT_ID);
    expect(f.tokenRequests).toHaveLength(1);
    clock.advance(10_000); // 275 s: past the renewal point, before expiry
    await client.getThreat(THREAT_ID);
    expect(f.tokenRequests).toHaveLength(2);
    expect(f.requests.map((r) => r.authorization)).toEqual(["Bearer tok-1", "Bearer tok-1", "Bearer tok-2"]);
  });

  it("a short-lived token (2 s) is still reused for a while, then renewed", async () => {
    const f = await setup({ expiresIn: 2 });
    const { client, clock } = track(harness(f));
    await client.getThreat(THREAT_ID);
    clock.advance(1500); // 80 % of 2 s is 1.6 s: still the first token
    await client.getThreat(THREAT_ID);
    expect(f.tokenRequests).toHaveLength(1);
    clock.advance(200);
    await client.getThreat(THREAT_ID);
    expect(f.tokenRequests).toHaveLength(2);
  });

  it("a 401 on a request that carried a token gets one new token and one retry", async () => {
    const f = await setup();
    const { client } = track(harness(f));
    await client.getThreat(THREAT_ID);
    f.revokeTokens();
    const again = await client.getThreat(THREAT_ID);
    expect(again?.id).toBe(THREAT_ID);
    expect(f.tokenRequests).toHaveLength(2);
    expect(f.requests.map((r) => r.authorization)).toEqual(["Bearer tok-1", "Bearer tok-1", "Bearer tok-2"]);
  });

  it("concurrent 401s with the same stale token still fetch only one new token", async () => {
    const f = await setup();
    const { client } = track(harness(f));
    await client.getThreat(THREAT_ID);
    f.revokeTokens();
    await Promise.all(Array.from({ length: 10 }, () => client.getThreat(THREAT_ID)));
    expect(f.tokenRequests).toHaveLength(2);
  });

  it("a second 401 surfaces as an error: no loop of token requests", async () => {
    const f = await setup();
    const { client } = track(harness(f));
    f.fault("GET /v1/threats/" + THREAT_ID, ...Array.from({ length: 2 }, () => ({ status: 401 })));
    const err = await rejection(client.getThreat(THREAT_ID), PlatformProblem);
    expect(err.status).toBe(401);
    expect(f.requests).toHaveLength(2);
    expect(f.tokenRequests).toHaveLength(2);
  });

  it("client_secret_basic sends url-encoded id:secret in HTTP Basic, not in the form", async () => {
    const f = await setup({ clientId: "org id/1", clientSecret: "p@ss:wörd+%" });
    const { client } = track(harness(f, { clientId: "org id/1", clientSecret: "p@ss:wörd+%" }));
    await client.getThreat(THREAT_ID);
    const req = f.tokenRequests[0];
    expect(req?.authorization).toBe(
      `Basic ${Buffer.from("org%20id%2F1:p%40ss%3Aw%C3%B6rd%2B%25").toString("base64")}`,
    );
    const form = new URLSearchParams(req?.body);
    expect(form.get("grant_type")).toBe("client_credentials");
    expect(form.has("client_secret")).toBe(false);
  });

  it("client_secret_basic against a token endpoint that does not url-decode the pair: a secret with +, / and = still gets a token, asked for once more as it is, and that form is kept", async () => {
    const secret = "aB3+x/Yz9=";
    const f = await setup({ clientSecret: secret, basicDecoding: "raw" });
    const { client, clock } = track(harness(f, { clientSecret: secret }));
    expect((await client.getThreat(THREAT_ID))?.id).toBe(THREAT_ID);
    expect(f.tokenRequests.map((r) => r.authorization)).toEqual([
      `Basic ${Buffer.from("client-id:aB3%2Bx%2FYz9%3D").toString("base64")}`,
      `Basic ${Buffer.from(`client-id:${secret}`).toString("base64")}`,
    ]);
    clock.advance(300_000);
    await client.getThreat(THREAT_ID);
    expect(f.tokenRequests).toHaveLength(3);
    expect(f.tokenRequests[2]?.authorization).toBe(f.tokenRequests[1]?.authorization);
  });

  it("a wrong secret with such characters is refused after its two forms, with the endpoint's first answer", async () => {
    const f = await setup({ clientSecret: "right+secret" });
    const { client } = track(harness(f, { clientSecret: "wrong+secret" }));
    const err = await rejection(client.getThreat(THREAT_ID), PlatformTokenError);
    expect(err.oauthError).toBe("invalid_client");
    expect(f.tokenRequests).toHaveLength(2);
    expect(f.requests).toHaveLength(0);
  });

  it("client_secret_post sends the credentials as form fields, with scope and audience", async () => {
    const f = await setup({ tokenAuth: "client_secret_post" });
    const { client } = track(
      harness(f, { tokenAuth: "client_secret_post", scope: "threats:rw", audience: "api" }),
    );
    await client.getThreat(THREAT_ID);
    const req = f.tokenRequests[0];
    expect(req?.authorization).toBeUndefined();
    expect(Object.fromEntries(new URLSearchParams(req?.body))).toEqual({
      grant_type: "client_credentials",
      scope: "threats:rw",
      audience: "api",
      client_id: "client-id",
      client_secret: "s3cret-value",
    });
  });

  it("a refused token request becomes PlatformTokenError without the secret, even if echoed", async () => {
    const f = await setup({ echoSecret: true, clientSecret: "right-secret" });
    const { client } = track(harness(f, { clientSecret: "wrong-s3cret" }));
    const tokenErr = await rejection(client.getThreat(THREAT_ID), PlatformTokenError);
    expect(tokenErr.code).toBe("platform_token_failed");
    expect(tokenErr.oauthError).toBe("invalid_client");
    expect(tokenErr.message).toContain("invalid_client");
    const text = `${tokenErr.message} ${JSON.stringify(tokenErr)} ${String(tokenErr.stack)}`;
    expect(text).not.toContain("wrong-s3cret");
    expect(text).not.toContain("Basic ");
    expect(f.requests).toHaveLength(0);
    // A refusal is not retried: the credentials will not get better.
    expect(f.tokenRequests).toHaveLength(1);
  });

  it("a token answer without access_token is PlatformTokenError", async () => {
    const f = await setup();
    const { client } = track(harness(f));
    f.fault("POST /oauth/token", {
      status: 200,
      body: { token_type: "Bearer" },
      contentType: "application/json",
    });
    const err = await rejection(client.getThreat(THREAT_ID), PlatformTokenError);
    expect(err.message).toContain("not a token response");
  });

  it("a failing token endpoint (500, reset) is retried, and the next call asks again after a failure", async () => {
    const f = await setup();
    const { client } = track(harness(f, { maxRetries: 1 }));
    f.fault("POST /oauth/token", { status: 500 }, "reset");
    await expect(client.getThreat(THREAT_ID)).rejects.toBeInstanceOf(PlatformTokenError);
    expect(f.tokenRequests).toHaveLength(2);
    expect((await client.getThreat(THREAT_ID))?.id).toBe(THREAT_ID);
    expect(client.stats().tokenRequests).toBe(3);
  });
});
