import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { loadUndiciParts, type UndiciParts } from "../../src/platform/undici-parts.js";

/**
 * The platform transport loads only undici's pool and request API (a start-up cost of every
 * command that reaches the platform); a release that moved those modules falls back to undici's
 * entry point. Either way the parts answer a real request.
 */

let server: Server | null = null;
afterEach(async () => {
  const s = server;
  server = null;
  if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
});

async function serve(): Promise<string> {
  server = createServer((req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ path: req.url, method: req.method }));
  });
  const s = server;
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", () => resolve()));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

async function roundTrip(parts: UndiciParts, origin: string): Promise<unknown> {
  const pool = new parts.Agent({ connections: 1 });
  try {
    const res = await parts.request(pool, { origin, path: "/v1/threats?limit=1", method: "GET" });
    expect(res.statusCode).toBe(200);
    return await res.body.json();
  } finally {
    await pool.destroy();
  }
}

describe("undici's parts for the platform transport", () => {
  it("are loaded by their modules' paths, not from the entry point, and answer a request", async () => {
    const parts = await loadUndiciParts();
    expect(parts.loaded).toBe("parts");
    expect(await roundTrip(parts, await serve())).toEqual({ path: "/v1/threats?limit=1", method: "GET" });
  });

  it("fall back to undici's entry point when those modules cannot be loaded (a release moved them)", async () => {
    const parts = await loadUndiciParts(() => Promise.reject(new Error("Cannot find module")));
    expect(parts.loaded).toBe("entry");
    expect(await roundTrip(parts, await serve())).toEqual({ path: "/v1/threats?limit=1", method: "GET" });
  });

  it("fall back too when a module loads but is not what it was (no function exported)", async () => {
    const parts = await loadUndiciParts(() => Promise.resolve({ default: {} }));
    expect(parts.loaded).toBe("entry");
  });
});
