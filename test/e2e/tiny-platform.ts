import { createServer, type IncomingMessage, type ServerResponse, type Server } from "node:http";
import type { Socket } from "node:net";
import { writeFile } from "node:fs/promises";
import type { World } from "./world.js";

/**
 * A deliberately misbehaving platform on 127.0.0.1 for end-to-end tests of the connector's edges:
 * a token endpoint at `/oauth/token` and an API under `/v1` whose answers a test chooses. It
 * records every request and closes every socket it opened when it stops.
 */

export interface SeenRequest {
  method: string;
  path: string;
  authorization: string | undefined;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

export interface TinyPlatform {
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

export const ISSUED_TOKEN = "tiny-access-token-5f2a9c7e1b";

/** A token endpoint that issues ISSUED_TOKEN to anyone. */
export function issueToken(res: ServerResponse): void {
  json(res, 200, { access_token: ISSUED_TOKEN, token_type: "Bearer", expires_in: 300 });
}

export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": status >= 400 ? "application/problem+json" : "application/json",
    "content-length": String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

export async function startTinyPlatform(handle: Handler): Promise<TinyPlatform> {
  const requests: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      requests.push({
        method: req.method ?? "",
        path: new URL(req.url ?? "/", "http://x").pathname,
        authorization: req.headers.authorization,
      });
      handle(req, res, body);
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Points the world's config at `platformUrl` instead of the simulator (GitHub stays the stand-in). */
export async function useTinyPlatform(
  world: World,
  platformUrl: string,
  extra = "",
  platformExtra = "",
): Promise<void> {
  await writeFile(
    world.configPath,
    `platform:
  base_url: ${platformUrl}
  token_url: ${platformUrl}/oauth/token
  client_id: \${PLATFORM_CLIENT_ID}
  client_secret: \${PLATFORM_CLIENT_SECRET}
${platformExtra}
github:
  api_url: ${world.gh.url}
  token: \${GITHUB_TOKEN}
  repository: acme/security-threats
  write_budget: { per_minute: 0, per_hour: 0, min_interval_ms: 0 }
state:
  path: ${world.statePath}
${extra}`,
  );
}

/** Polls `check` every 20 ms, at most `ms` (a bounded wait for something the test cannot await). */
export async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  for (let waited = 0; waited < ms; waited += 20) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}
