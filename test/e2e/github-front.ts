import { createServer, type ServerResponse } from "node:http";
import type { Socket } from "node:net";

/**
 * A front on 127.0.0.1 between the connector and the GitHub stand-in, whose behaviour a test
 * switches while the connector runs: pass everything through, answer 502 to everything, accept
 * connections and never answer, or pass creates through and withhold GitHub's answer (the create
 * landed; the connector cannot know). It records every request and closes every socket it opened.
 */

export type FrontMode = "pass" | "502" | "hang" | "withhold-creates";

export interface GitHubFront {
  url: string;
  mode: FrontMode;
  requests: Array<{ method: string; path: string }>;
  close(): Promise<void>;
}

const CREATE = /^\/repos\/[^/]+\/[^/]+\/issues$/;
/** Hop-by-hop or re-computed headers: the front sets its own. */
const DROPPED = new Set([
  "connection",
  "content-length",
  "content-encoding",
  "transfer-encoding",
  "keep-alive",
]);

export async function startGitHubFront(standInUrl: string): Promise<GitHubFront> {
  const sockets = new Set<Socket>();
  const held = new Set<ServerResponse>();
  const front: GitHubFront = {
    url: "",
    mode: "pass",
    requests: [],
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (d: Buffer) => chunks.push(d));
    req.on("end", () => {
      const method = req.method ?? "GET";
      const path = new URL(req.url ?? "/", "http://x").pathname;
      front.requests.push({ method, path });
      const mode = front.mode;
      if (mode === "hang") {
        held.add(res);
        return;
      }
      if (mode === "502") {
        res.writeHead(502, { "content-type": "application/json" });
        res.end(JSON.stringify({ message: "Bad Gateway" }));
        return;
      }
      const withhold = mode === "withhold-creates" && method === "POST" && CREATE.test(path);
      void forward(standInUrl, method, req.url ?? "/", req.headers, Buffer.concat(chunks)).then(
        (answer) => {
          if (withhold) {
            held.add(res);
            return;
          }
          res.writeHead(answer.status, answer.headers);
          res.end(answer.body);
        },
        () => res.destroy(),
      );
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  front.url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
  return front;
}

async function forward(
  base: string,
  method: string,
  url: string,
  headers: Record<string, string | string[] | undefined>,
  body: Buffer,
): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  const sent: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name !== "host" && !DROPPED.has(name) && typeof value === "string") sent[name] = value;
  }
  const answer = await fetch(base + url, {
    method,
    headers: sent,
    ...(method === "GET" || method === "HEAD" ? {} : { body }),
  });
  const text = Buffer.from(await answer.arrayBuffer());
  const back: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    if (!DROPPED.has(name)) back[name] = value;
  });
  back["content-length"] = String(text.length);
  return { status: answer.status, headers: back, body: text };
}
