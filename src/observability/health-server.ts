import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Logger } from "./logger.js";

/**
 * The HTTP side of `run` (contract: `/healthz`, `/readyz`, `/metrics` on `health.port`).
 * `/healthz` says whether the process loop is alive, `/readyz` whether it is doing its job,
 * `/metrics` is Prometheus text. `routes` adds paths with handlers of their own (the GitHub webhook).
 * Everything else is 404; nothing here writes or reveals a secret.
 */

/** A path's own handler: it answers every method itself. */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export interface ProbeResult {
  ok: boolean;
  body: Record<string, unknown>;
}

export interface HealthServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  liveness: () => ProbeResult;
  readiness: () => ProbeResult;
  metrics: () => Promise<{ contentType: string; body: string }>;
  /** More paths, each with its handler (e.g. `github.webhook.path`). */
  routes?: Readonly<Record<string, RouteHandler>>;
  logger?: Logger;
  /**
   * A connection whose request (headers and body) has not fully arrived this long after it began,
   * or that has sent nothing this long after it opened, is answered 408 and closed (contract: 10 s).
   */
  requestTimeoutMs?: number;
  /** Connections held at once; one more is closed as it comes (default MAX_CONNECTIONS). */
  maxConnections?: number;
}

/** Contract: the health port closes a connection whose request has not fully arrived within 10 s. */
export const REQUEST_TIMEOUT_MS = 10_000;

/**
 * Connections the health port holds at once (contract: "a bounded number"). Its clients are a
 * kubelet's probes, a Prometheus scrape or two and GitHub's webhook deliveries, a few at a time;
 * 128 leaves room for a burst of deliveries (a person closing issues in bulk) while slow or idle
 * clients, each cut off after REQUEST_TIMEOUT_MS, cannot exhaust the process's file descriptors.
 */
export const MAX_CONNECTIONS = 128;

/** Idle keep-alive between two requests of one client (probes come every few seconds). */
const KEEP_ALIVE_MS = 2_000;

export interface RunningHealthServer {
  /** e.g. http://127.0.0.1:9464 */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export class HealthServerError extends Error {
  readonly code = "health_listen_failed";
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = "HealthServerError";
  }
}

function send(res: ServerResponse, status: number, contentType: string, body: string, head: boolean): void {
  res.writeHead(status, {
    "content-type": contentType,
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
  });
  res.end(head ? undefined : body);
}

function sendJson(res: ServerResponse, status: number, body: Record<string, unknown>, head: boolean): void {
  send(res, status, "application/json; charset=utf-8", `${JSON.stringify(body)}\n`, head);
}

async function handle(req: IncomingMessage, res: ServerResponse, opts: HealthServerOptions): Promise<void> {
  const head = req.method === "HEAD";
  const path = new URL(req.url ?? "/", "http://localhost").pathname;
  const route = opts.routes !== undefined && Object.hasOwn(opts.routes, path) ? opts.routes[path] : undefined;
  if (route !== undefined) {
    await route(req, res);
    return;
  }
  const known = path === "/healthz" || path === "/readyz" || path === "/metrics";
  if (!known) {
    sendJson(res, 404, { error: "not found", paths: ["/healthz", "/readyz", "/metrics"] }, head);
    return;
  }
  if (req.method !== "GET" && !head) {
    res.setHeader("allow", "GET, HEAD");
    sendJson(res, 405, { error: "method not allowed" }, false);
    return;
  }
  if (path === "/metrics") {
    const { contentType, body } = await opts.metrics();
    send(res, 200, contentType, body, head);
    return;
  }
  const probe = path === "/healthz" ? opts.liveness() : opts.readiness();
  sendJson(res, probe.ok ? 200 : 503, probe.body, head);
}

export async function startHealthServer(opts: HealthServerOptions): Promise<RunningHealthServer> {
  const requestTimeout = opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  if (!(requestTimeout > 0))
    throw new RangeError("requestTimeoutMs must be positive (0 would never time out)");
  // Node's defaults let a request take 300 s and check only every 30 s, so clients dripping a
  // webhook body a byte at a time would hold connections for minutes. Headers and body both
  // count against the one deadline, which also closes a connection that sends nothing at all; the
  // check runs often enough to keep each within a quarter of a second of it.
  const server = createServer(
    {
      requestTimeout,
      headersTimeout: requestTimeout,
      connectionsCheckingInterval: Math.min(250, Math.max(25, Math.floor(requestTimeout / 10))),
    },
    (req, res) => {
      handle(req, res, opts).catch((error: unknown) => {
        opts.logger?.error(
          { err: error instanceof Error ? error.message : String(error) },
          "health server request failed",
        );
        if (!res.headersSent) sendJson(res, 500, { error: "internal error" }, false);
        else res.destroy();
      });
    },
  );
  // Probes come every few seconds from one client: short keep-alive, so close() is never held up.
  server.keepAliveTimeout = Math.min(KEEP_ALIVE_MS, requestTimeout);
  // Beyond the cap Node closes a new connection at once (the kernel's backlog is not an unbounded queue either).
  server.maxConnections = opts.maxConnections ?? MAX_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    const onError = (cause: unknown): void => {
      const detail = cause instanceof Error ? cause.message : String(cause);
      reject(
        new HealthServerError(
          `the health server cannot listen on ${opts.host}:${opts.port} (${detail}); set health.port to a free port`,
          { cause },
        ),
      );
    };
    server.once("error", onError);
    server.listen(opts.port, opts.host, () => {
      server.off("error", onError);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : opts.port;
  const host = opts.host.includes(":") ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
