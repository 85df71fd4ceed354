import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createSecretRegistry } from "../../src/observability/index.js";
import {
  PlatformNetworkError,
  PlatformProblem,
  classifyNetworkError,
  createPlatformClient,
  type PlatformClient,
} from "../../src/platform/index.js";
import { rejection, THREAT_ID } from "./client-harness.js";

/**
 * A total deadline per request, and a stop abandons the request in flight; server text echoing
 * credentials never reaches an error; network failures are told apart from credentials.
 */

const TOKEN = "issued-token-7c1e55a0b9";
let server: Server | undefined;
let client: PlatformClient | undefined;
const sockets = new Set<Socket>();
const timers = new Set<NodeJS.Timeout>();

afterEach(async () => {
  for (const t of timers) clearInterval(t);
  timers.clear();
  await client?.close();
  client = undefined;
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A token endpoint that works, and an API answered by `api`; `seen` counts API requests. */
async function platform(
  api: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; seen: () => number }> {
  let seen = 0;
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.url === "/oauth/token") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ access_token: TOKEN, token_type: "Bearer", expires_in: 300 }));
        return;
      }
      seen++;
      api(req, res);
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, seen: () => seen };
}

function connect(
  url: string,
  extra: Partial<Parameters<typeof createPlatformClient>[0]> = {},
): PlatformClient {
  client = createPlatformClient({
    baseUrl: url,
    tokenUrl: `${url}/oauth/token`,
    clientId: "id",
    clientSecret: "client-secret-value",
    tokenAuth: "client_secret_basic",
    maxRetries: 0,
    ...extra,
  });
  return client;
}

describe("every platform request has a total deadline", () => {
  it("a body trickled a byte at a time ends at timeoutMs as network_timeout, whatever the gaps between bytes", async () => {
    const p = await platform((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const timer = setInterval(() => res.write(" "), 20);
      timers.add(timer);
      res.on("close", () => clearInterval(timer));
    });
    const c = connect(p.url, { timeoutMs: 300 });
    const err = await rejection(c.getThreat(THREAT_ID), PlatformNetworkError);
    expect(err.kind).toBe("network_timeout");
    expect(err.message).toContain("not a credentials problem");
  });

  it("a stop abandons the request in flight, and a stream walk ends quietly after the pages delivered", async () => {
    const p = await platform(() => {
      // never answers
    });
    const stop = new AbortController();
    const c = connect(p.url, { stop: stop.signal });
    const pending = c.getThreat(THREAT_ID);
    const walk = (async () => {
      const pages = [];
      for await (const page of c.streamThreats(null)) pages.push(page);
      return pages;
    })();
    for (let i = 0; i < 500 && p.seen() < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    stop.abort(new Error("SIGTERM"));
    const err = await pending.then(
      () => null,
      (e: unknown) => e,
    );
    expect(classifyNetworkError(err).kind).toBe("stopped");
    expect(await walk).toEqual([]);
  });
});

describe("a stop finishes the write in flight (contract, run: SIGTERM finishes the write in flight)", () => {
  it("a verdict PATCH in flight when the stop comes is answered and its result returned; no request starts after it", async () => {
    const p = await platform((req, res) => {
      if (req.method !== "PATCH") return; // reads never answer
      setTimeout(() => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ id: THREAT_ID, status: "solved", updated_at: "2026-01-01T00:00:00Z" }));
      }, 300);
    });
    const stop = new AbortController();
    const c = connect(p.url, { stop: stop.signal });
    const patched = c.setStatus(THREAT_ID, "solved");
    for (let i = 0; i < 500 && p.seen() < 1; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    stop.abort(new Error("SIGTERM"));
    await expect(patched).resolves.toMatchObject({ id: THREAT_ID, status: "solved" });
    const after = await c.getThreat(THREAT_ID).then(
      () => null,
      (e: unknown) => e,
    );
    expect(classifyNetworkError(after).kind).toBe("stopped");
    expect(p.seen()).toBe(1);
  });

  it("a write that hangs is cut once the grace has passed, as stopped (its work stays queued)", async () => {
    const p = await platform(() => {
      // never answers
    });
    const stop = new AbortController();
    const c = connect(p.url, { stop: stop.signal, writeGraceMs: 100 });
    const patched = c.setStatus(THREAT_ID, "solved").then(
      () => null,
      (e: unknown) => e,
    );
    for (let i = 0; i < 500 && p.seen() < 1; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    stop.abort(new Error("SIGTERM"));
    expect(classifyNetworkError(await patched).kind).toBe("stopped");
  });
});

describe("server text echoing credentials never reaches an error", () => {
  it("a problem detail repeating the bearer token, the Authorization header and a GitHub token is scrubbed", async () => {
    const p = await platform((req, res) => {
      res.writeHead(403, { "content-type": "application/problem+json" });
      res.end(
        JSON.stringify({
          type: "about:blank",
          status: 403,
          title: "Forbidden",
          detail: `denied ${TOKEN}; you sent Authorization: ${req.headers.authorization ?? ""} and ghp_abcdefghij0123456789`,
        }),
      );
    });
    const secrets = createSecretRegistry();
    const c = connect(p.url, { secrets });
    const err = await rejection(c.getThreat(THREAT_ID), PlatformProblem);
    const text = `${err.message} ${JSON.stringify(err)}`;
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain("ghp_abcdefghij");
    expect(text).toContain("[redacted]");
    // The issued token is registered for the logger too.
    expect(secrets.scrub(`x ${TOKEN}`)).toBe("x [redacted]");
    expect(err.kind).toBe("credentials");
  });
});

describe("classifyNetworkError tells the network's failures from credentials", () => {
  const withCode = (code: string): Error => Object.assign(new Error(code), { code });
  it.each([
    ["ENOTFOUND", "network_dns", "DNS"],
    ["EAI_AGAIN", "network_dns", "DNS"],
    ["ECONNREFUSED", "network_refused", "refused"],
    ["CERT_HAS_EXPIRED", "network_tls", "TLS"],
    ["UNABLE_TO_VERIFY_LEAF_SIGNATURE", "network_tls", "TLS"],
    ["UND_ERR_HEADERS_TIMEOUT", "network_timeout", "timeout_ms"],
    ["ECONNRESET", "network_reset", "dropped"],
  ])("%s (also as a cause) is %s", (code, kind, hint) => {
    const wrapped = new Error("fetch failed", { cause: withCode(code) });
    expect(classifyNetworkError(wrapped).kind).toBe(kind);
    expect(classifyNetworkError(wrapped).hint).toContain(hint);
    expect(classifyNetworkError(wrapped).hint).toContain("not a credentials problem");
  });
});
