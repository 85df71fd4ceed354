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
}

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
  const server = createServer((req, res) => {
    handle(req, res, opts).catch((error: unknown) => {
      opts.logger?.error(
        { err: error instanceof Error ? error.message : String(error) },
        "health server request failed",
      );
      if (!res.headersSent) sendJson(res, 500, { error: "internal error" }, false);
      else res.destroy();
    });
  });
  // Probes come every few seconds from one client: short keep-alive, so close() is never held up.
  server.keepAliveTimeout = 2_000;
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
