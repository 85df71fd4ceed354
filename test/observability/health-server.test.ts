import { afterEach, describe, expect, it } from "vitest";
import { startHealthServer, type RunningHealthServer } from "../../src/observability/index.js";

let server: RunningHealthServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(ready: boolean): Promise<RunningHealthServer> {
  server = await startHealthServer({
    host: "127.0.0.1",
    port: 0,
    liveness: () => ({ ok: true, body: { status: "ok" } }),
    readiness: () =>
      ready
        ? { ok: true, body: { status: "ready" } }
        : { ok: false, body: { status: "not ready", reason: "the first cycle has not completed yet" } },
    metrics: async () => ({ contentType: "text/plain; version=0.0.4; charset=utf-8", body: "up 1\n" }),
  });
  return server;
}

describe("health server of run", () => {
  it("answers /healthz 200 and /readyz 503 with a JSON reason while not ready", async () => {
    const s = await start(false);
    const health = await fetch(`${s.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    const ready = await fetch(`${s.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.headers.get("content-type")).toContain("application/json");
    expect(await ready.json()).toEqual({
      status: "not ready",
      reason: "the first cycle has not completed yet",
    });
  });

  it("answers /readyz 200 when ready and serves /metrics as Prometheus text", async () => {
    const s = await start(true);
    expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
    const metrics = await fetch(`${s.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get("content-type")).toContain("text/plain");
    expect(await metrics.text()).toBe("up 1\n");
  });

  it("answers 404 on unknown paths and 405 on writes; HEAD has no body", async () => {
    const s = await start(true);
    expect((await fetch(`${s.url}/`)).status).toBe(404);
    expect((await fetch(`${s.url}/healthz/extra`)).status).toBe(404);
    const post = await fetch(`${s.url}/healthz`, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    const head = await fetch(`${s.url}/healthz`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it("fails with a clear message when the port is taken", async () => {
    const s = await start(true);
    await expect(
      startHealthServer({
        host: "127.0.0.1",
        port: s.port,
        liveness: () => ({ ok: true, body: {} }),
        readiness: () => ({ ok: true, body: {} }),
        metrics: async () => ({ contentType: "text/plain", body: "" }),
      }),
    ).rejects.toMatchObject({
      code: "health_listen_failed",
      message: expect.stringContaining(`127.0.0.1:${s.port}`),
    });
  });
});
