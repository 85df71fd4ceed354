import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  MAX_CONNECTIONS,
  REQUEST_TIMEOUT_MS,
  silentLogger,
  startHealthServer,
  type RunningHealthServer,
} from "../../src/observability/index.js";
import { createWebhookReceiver } from "../../src/webhooks/index.js";

/**
 * Contract, "GitHub webhooks": the health port (webhooks included) closes a connection whose
 * request has not fully arrived within 10 s, and holds at most a bounded number of connections, so
 * slow or idle clients cannot tie it up. The 10 s is a parameter: here a real 200 ms, with clients
 * dripping on 127.0.0.1 every 50 ms (they would never finish on their own).
 */

const PATH = "/github/webhook";
let server: RunningHealthServer | undefined;
const sockets: Socket[] = [];
const timers: NodeJS.Timeout[] = [];

afterEach(async () => {
  for (const t of timers.splice(0)) clearInterval(t);
  for (const s of sockets.splice(0)) s.destroy();
  await server?.close();
  server = undefined;
});

async function start(opts: {
  requestTimeoutMs?: number;
  maxConnections?: number;
}): Promise<RunningHealthServer> {
  server = await startHealthServer({
    host: "127.0.0.1",
    port: 0,
    liveness: () => ({ ok: true, body: { status: "ok" } }),
    readiness: () => ({ ok: true, body: { status: "ready" } }),
    metrics: () => Promise.resolve({ contentType: "text/plain", body: "" }),
    // The receiver's own read deadline is left long: the server's deadline is what is tested here.
    routes: {
      [PATH]: createWebhookReceiver({
        secret: "s",
        logger: silentLogger,
        onIssue: () => true,
        readTimeoutMs: 60_000,
      }),
    },
    logger: silentLogger,
    ...opts,
  });
  return server;
}

interface Client {
  open: boolean;
  received: string;
}

/** A client that sends `head` at once, then `drip` every 50 ms, forever; resolves once connected. */
function client(port: number, head: string, drip: string): Promise<Client> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    sockets.push(socket);
    const c: Client = { open: true, received: "" };
    socket.on("data", (d: Buffer) => (c.received += d.toString()));
    socket.on("error", () => {});
    socket.on("close", () => (c.open = false));
    socket.on("connect", () => {
      if (head !== "") socket.write(head);
      if (drip !== "") timers.push(setInterval(() => c.open && socket.write(drip), 50));
      resolve(c);
    });
  });
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
}

const DRIP_BODY =
  `POST ${PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
  `x-github-event: issues\r\nx-github-delivery: d1\r\ncontent-length: 100000\r\n\r\n`;

describe("the health port against slow and idle clients", () => {
  it("the defaults are the contract's: 10 s to receive a request, and a bounded number of connections", () => {
    expect(REQUEST_TIMEOUT_MS).toBe(10_000);
    expect(MAX_CONNECTIONS).toBeGreaterThan(0);
    expect(MAX_CONNECTIONS).toBeLessThanOrEqual(1024);
  });

  it("a webhook body dripped, headers dripped, or nothing sent: each connection is answered 408 or closed once the request timeout passes", async () => {
    const s = await start({ requestTimeoutMs: 200 });
    const body = await Promise.all(Array.from({ length: 5 }, () => client(s.port, DRIP_BODY, "{")));
    const headers = await Promise.all(
      Array.from({ length: 5 }, () => client(s.port, "GET /healthz HTTP/1.1\r\n", "x-slow: y\r\n")),
    );
    const idle = await Promise.all(Array.from({ length: 5 }, () => client(s.port, "", "")));
    const all = [...body, ...headers, ...idle];
    // Bounded: well past 200 ms, far below Node's default of 300 s (which would keep them all).
    expect(await until(() => all.every((c) => !c.open), 5_000)).toBe(true);
    for (const c of [...body, ...headers]) expect(c.received).toMatch(/^HTTP\/1\.1 408 /);
    // The port still answers a client that sends its request at once.
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
  });

  it("holds at most maxConnections: one more is closed at once while those held stay, and the port answers again once they go", async () => {
    const s = await start({ requestTimeoutMs: 10_000, maxConnections: 3 });
    const held = await Promise.all(
      Array.from({ length: 3 }, () => client(s.port, "GET /healthz HTTP/1.1\r\n", "")),
    );
    await new Promise((r) => setTimeout(r, 100));
    const extra = await Promise.all(Array.from({ length: 4 }, () => client(s.port, "", "")));
    expect(await until(() => extra.every((c) => !c.open), 3_000)).toBe(true);
    expect(held.every((c) => c.open)).toBe(true);
    for (const socket of sockets.splice(0)) socket.destroy();
    expect(await until(() => held.every((c) => !c.open), 3_000)).toBe(true);
    // Node counts a connection as gone once its close is handled: allow it that moment.
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i += 1) {
      status = await fetch(`${s.url}/healthz`)
        .then((r) => r.status)
        .catch(() => 0);
      if (status !== 200) await new Promise((r) => setTimeout(r, 20));
    }
    expect(status).toBe(200);
  });

  it("a request timeout of 0 (never) is refused", async () => {
    await expect(start({ requestTimeoutMs: 0 })).rejects.toThrow(/requestTimeoutMs must be positive/);
  });
});
