import type { IncomingMessage, ServerResponse } from "node:http";
import type { Auth } from "./auth.js";
import type { Fault } from "./faults.js";
import type { PrimaryLimit } from "./limits.js";
import type { Reply, RouteMatch } from "./router.js";
import type { StandInCounters } from "./types.js";
import { repoGate, type RepoDirectory } from "./repo-settings.js";
import { etagOf, ifNoneMatchHits } from "./pagination.js";
import {
  badCredentials,
  badJson,
  forbidden,
  notFound,
  primaryLimited,
  secondaryLimited,
  serverError,
  validationFailed,
} from "./replies.js";

/** Request bodies above this are refused; GitHub's own text limits are far below it. */
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;
const WRITE_METHODS = new Set(["POST", "PATCH", "PUT", "DELETE"]);

interface PipelineDeps {
  baseUrl: () => string;
  match: (method: string, path: string) => RouteMatch | null;
  auth: Auth;
  primary: PrimaryLimit;
  secondary: { admit(): number | null };
  takeFault: (method: string, template: string, path: string) => Fault | null;
  /** Runs the write hooks due once a write was processed. */
  wrote: () => void;
  /** Whether `owner/name` is archived (every write is refused). */
  isArchived: (owner: string, name: string) => boolean;
  counters: StandInCounters;
  /** Repositories that exist and their settings (see repo-settings.ts); null: all exist. */
  repositories: RepoDirectory;
}

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BYTES) chunks.push(chunk);
    });
    req.on("end", () => resolve(size > MAX_REQUEST_BYTES ? null : Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === "") return { ok: true, value: undefined };
  try {
    const value: unknown = JSON.parse(text);
    return { ok: true, value };
  } catch {
    return { ok: false };
  }
}

/** Handles one request from start to finish: auth, faults, limits, the handler, ETag, headers. */
export function createPipeline(deps: PipelineDeps) {
  const { counters } = deps;
  let requestSeq = 0;

  function send(res: ServerResponse, reply: Reply, requestId: string, rate: boolean): void {
    const headers: Record<string, string> = {
      "content-type": "application/json; charset=utf-8",
      "x-github-request-id": requestId,
      "x-github-media-type": "github.v3; format=json",
      "x-github-api-version-selected": "2022-11-28",
      ...reply.headers,
    };
    if (rate) {
      const s = deps.primary.snapshot();
      headers["x-ratelimit-limit"] = String(s.limit);
      headers["x-ratelimit-remaining"] = String(s.remaining);
      headers["x-ratelimit-reset"] = String(s.reset);
      headers["x-ratelimit-used"] = String(s.used);
      headers["x-ratelimit-resource"] = "core";
    }
    const text = reply.status === 304 || reply.body === undefined ? "" : JSON.stringify(reply.body);
    res.writeHead(reply.status, headers);
    res.end(text);
  }

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    counters.requests += 1;
    requestSeq += 1;
    const requestId = `5A1D:${requestSeq.toString(16).toUpperCase().padStart(6, "0")}:STANDIN`;
    const method = (req.method ?? "GET").toUpperCase();
    const url = new URL(req.url ?? "/", deps.baseUrl());
    const raw = await readBody(req);
    const auth = deps.auth.authenticate(req.headers.authorization);
    if (!auth) return send(res, badCredentials(), requestId, false);
    const byToken = auth.kind === "token";
    const found = deps.match(method, url.pathname);
    const routeKey = found ? `${method} ${found.route.pattern}` : "unknown";
    counters.byRoute[routeKey] = (counters.byRoute[routeKey] ?? 0) + 1;
    if (found && found.route.auth !== auth.kind) return send(res, badCredentials(), requestId, false);
    // `GET /rate_limit` is free on GitHub; every other token request costs a point unless it is a 304.
    const costs = byToken && found?.route.pattern !== "/rate_limit";
    const spend = (): void => {
      if (!costs) return;
      deps.primary.spend();
      counters.rateLimitPoints += 1;
    };
    const answer = (reply: Reply): void => {
      spend();
      send(res, reply, requestId, byToken);
    };
    if (costs && deps.primary.exhausted()) return send(res, primaryLimited(), requestId, true);
    if (!found) return answer(notFound());
    const { route, params } = found;

    const fault = deps.takeFault(method, route.pattern, url.pathname);
    if (fault?.kind === "fail") return answer(serverError(fault.status));
    const isWrite = WRITE_METHODS.has(method) && byToken;
    const gate = repoGate(deps.repositories, params, route.pattern, WRITE_METHODS.has(method));
    if (gate !== null) return answer(gate);
    const retryAfter =
      fault?.kind === "secondary" ? fault.retryAfterSeconds : isWrite ? deps.secondary.admit() : null;
    if (retryAfter !== null) {
      counters.secondaryLimited += 1;
      return answer(secondaryLimited(retryAfter));
    }
    if (raw === null) return answer({ status: 413, body: { message: "Payload too large" } });
    if (fault?.kind === "invalid_body") {
      return answer(
        validationFailed([
          {
            resource: "Issue",
            code: "custom",
            field: "body",
            message: "body is too long (maximum is 65536 characters)",
          },
        ]),
      );
    }
    // Only repository routes can hit an archived repository (a project's routes name no repository).
    const { owner, repo } = params;
    if (isWrite && owner !== undefined && repo !== undefined && deps.isArchived(owner, repo)) {
      return answer(forbidden("Repository was archived so is read-only."));
    }
    const body = parseJson(raw);
    if (!body.ok) return answer(badJson());

    let reply: Reply;
    try {
      const actor = byToken ? auth.actor : null;
      reply = route.handler({ method, params, query: url.searchParams, body: body.value, actor, url });
    } catch (error) {
      reply = { status: 500, body: { message: `stand-in handler failed: ${String(error)}` } };
    }
    if (isWrite) {
      counters.writes += 1;
      deps.wrote();
    }
    if (fault?.kind === "lose") {
      // The change happened; the client never learns so ("lost response").
      spend();
      req.socket.destroy();
      return undefined;
    }
    if (method === "GET" && reply.status === 200) {
      const etag = etagOf(JSON.stringify(reply.body));
      reply = {
        ...reply,
        headers: { ...reply.headers, etag, "cache-control": "private, max-age=60, s-maxage=60" },
      };
      if (ifNoneMatchHits(req.headers["if-none-match"], etag)) {
        // A 304 costs no rate-limit point (GitHub's conditional requests).
        counters.notModified += 1;
        return send(res, { status: 304, headers: reply.headers ?? {} }, requestId, byToken);
      }
    }
    return answer(reply);
  };
}
