import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { SETTABLE_STATUSES } from "../../src/shared/index.js";

/**
 * A small stateful stand-in for the platform API and its token endpoint, for the client's unit
 * tests. Strict: a request to a route it does not know is recorded in `unexpected` (tests assert
 * it stays empty). Faults are queued per route ("GET /v1/threats") and consumed in order.
 */

export interface LoggedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
  body: string;
}

export type Fault = { status: number; retryAfter?: string; body?: unknown; contentType?: string } | "reset";

export interface FakeStream {
  /** Raw items in delivery order (may hold malformed ones on purpose). */
  log: unknown[];
  /** Trailing entries of `log` not delivered yet: "very recent changes are briefly withheld". */
  withheld: number;
  /** Release the withheld entries after this many empty pages with a cursor (null: never). */
  releaseAfterEmptyPages: number | null;
  emptyPagesServed: number;
  /** Name of the page's array property. */
  arrayProperty: string;
  /** Replace the whole page body (malformed envelopes). */
  envelope?: (items: unknown[], nextCursor: string | null) => unknown;
}

export interface FakePlatformOptions {
  clientId?: string;
  clientSecret?: string;
  tokenAuth?: "client_secret_basic" | "client_secret_post";
  expiresIn?: number;
  /** Put the secret the client sent into token error descriptions (a careless identity provider). */
  echoSecret?: boolean;
  /**
   * How the Basic pair is read: `form` url-decodes id and secret (RFC 6749 §2.3.1), `raw` takes
   * them as they are (many token endpoints do).
   */
  basicDecoding?: "form" | "raw";
}

export interface FakePlatform {
  url: string;
  tokenUrl: string;
  tokenRequests: LoggedRequest[];
  requests: LoggedRequest[];
  unexpected: string[];
  threats: Map<string, Record<string, unknown>>;
  streams: { "/v1/threats": FakeStream; "/v1/assets": FakeStream };
  fault(route: string, ...faults: Fault[]): void;
  /** Every token issued so far answers 401 from now on (the platform's view of expiry). */
  revokeTokens(): void;
  close(): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SETTABLE: ReadonlySet<string> = new Set(SETTABLE_STATUSES);

export function newStream(arrayProperty: string): FakeStream {
  return { log: [], withheld: 0, releaseAfterEmptyPages: null, emptyPagesServed: 0, arrayProperty };
}

export async function startFakePlatform(opts: FakePlatformOptions = {}): Promise<FakePlatform> {
  const clientId = opts.clientId ?? "client-id";
  const clientSecret = opts.clientSecret ?? "s3cret-value";
  const tokenAuth = opts.tokenAuth ?? "client_secret_basic";
  const valid = new Set<string>();
  const faults = new Map<string, Fault[]>();
  let issued = 0;
  let requestSeq = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("fake platform: no TCP address");
  const url = `http://127.0.0.1:${address.port}`;

  const fake: FakePlatform = {
    url,
    tokenUrl: `${url}/oauth/token`,
    tokenRequests: [],
    requests: [],
    unexpected: [],
    threats: new Map(),
    streams: { "/v1/threats": newStream("threats"), "/v1/assets": newStream("assets") },
    fault(route, ...list) {
      faults.set(route, [...(faults.get(route) ?? []), ...list]);
    },
    revokeTokens: () => valid.clear(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  function send(
    res: ServerResponse,
    status: number,
    body?: unknown,
    headers: Record<string, string> = {},
  ): void {
    res.writeHead(status, { "x-request-id": `req-${++requestSeq}`, ...headers });
    res.end(body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body));
  }

  function problem(res: ServerResponse, status: number, suffix: string, path: string, detail: string): void {
    const body = { type: `${url}/errors/${suffix}`, title: suffix, status, detail, instance: path };
    send(res, status, body, { "content-type": "application/problem+json" });
  }

  function handle(req: IncomingMessage, res: ServerResponse, body: string): void {
    const u = new URL(req.url ?? "/", url);
    const entry: LoggedRequest = {
      method: req.method ?? "",
      path: u.pathname,
      query: u.searchParams,
      authorization: req.headers.authorization,
      body,
    };
    const route = `${entry.method} ${u.pathname}`;
    const queued = faults.get(route)?.shift();
    if (u.pathname === "/oauth/token") fake.tokenRequests.push(entry);
    else fake.requests.push(entry);
    if (queued === "reset") {
      req.socket.destroy();
      return;
    }
    if (queued !== undefined) {
      const headers: Record<string, string> = {
        "content-type": queued.contentType ?? "application/problem+json",
      };
      if (queued.retryAfter !== undefined) headers["retry-after"] = queued.retryAfter;
      send(
        res,
        queued.status,
        queued.body ?? { type: `${url}/errors/fault`, status: queued.status },
        headers,
      );
      return;
    }
    if (route === "POST /oauth/token") return token(req, res, body);
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (bearer === undefined) return problem(res, 401, "auth/missing-token", u.pathname, "no token");
    if (!valid.has(bearer)) return problem(res, 401, "auth/invalid-token", u.pathname, "token not valid");
    api(entry, res);
  }

  function token(req: IncomingMessage, res: ServerResponse, body: string): void {
    const form = new URLSearchParams(body);
    let id: string | null = null;
    let secret: string | null = null;
    if (tokenAuth === "client_secret_basic") {
      const m = /^Basic (.+)$/.exec(req.headers.authorization ?? "");
      const pair = m?.[1] === undefined ? "" : Buffer.from(m[1], "base64").toString("utf8");
      const at = pair.indexOf(":");
      const decode = opts.basicDecoding === "raw" ? (t: string) => t : decodeURIComponent;
      if (at > 0) [id, secret] = [decode(pair.slice(0, at)), decode(pair.slice(at + 1))];
      if (form.has("client_secret")) id = null;
    } else {
      [id, secret] = [form.get("client_id"), form.get("client_secret")];
      if (req.headers.authorization !== undefined) id = null;
    }
    if (form.get("grant_type") !== "client_credentials") {
      return send(res, 400, { error: "unsupported_grant_type" }, { "content-type": "application/json" });
    }
    if (id !== clientId || secret !== clientSecret) {
      const description = opts.echoSecret === true ? `bad credentials ${id}:${secret}` : "bad credentials";
      return send(
        res,
        401,
        { error: "invalid_client", error_description: description },
        { "content-type": "application/json" },
      );
    }
    const accessToken = `tok-${++issued}`;
    valid.add(accessToken);
    send(
      res,
      200,
      { access_token: accessToken, token_type: "Bearer", expires_in: opts.expiresIn ?? 300 },
      {
        "content-type": "application/json",
      },
    );
  }

  function api(r: LoggedRequest, res: ServerResponse): void {
    const json = { "content-type": "application/json" };
    if (r.method === "GET" && (r.path === "/v1/threats" || r.path === "/v1/assets")) {
      const page = listPage(fake.streams[r.path], r.query);
      if (typeof page === "string") return problem(res, 400, "request/invalid-cursor", r.path, page);
      return send(res, 200, page, json);
    }
    const m = /^\/v1\/threats\/([^/]+)(?:\/(update-note|external-references)(?:\/([^/]+))?)?$/.exec(r.path);
    const id = m?.[1] === undefined ? undefined : decodeURIComponent(m[1]);
    if (m === null || id === undefined) {
      fake.unexpected.push(`${r.method} ${r.path}`);
      return problem(res, 404, "path/not-allowlisted", r.path, "unknown endpoint");
    }
    if (!UUID.test(id)) return problem(res, 400, "request/invalid-filter", r.path, "not a uuid");
    const threat = fake.threats.get(id);
    if (threat === undefined) return problem(res, 404, "resource/not-found", r.path, "no such threat");
    const sub = m[2];
    const input: unknown = r.body === "" ? undefined : JSON.parse(r.body);
    const fields = typeof input === "object" && input !== null ? new Map(Object.entries(input)) : new Map();
    if (r.method === "GET" && sub === undefined)
      return send(res, 200, { ...threat, stream_position: null }, json);
    if (r.method === "PATCH" && sub === undefined) {
      const status = fields.get("status");
      if (status === "pending")
        return problem(res, 400, "request/invalid-status-transition", r.path, "settable: ...");
      const note = fields.get("status_note");
      const noteMissing = status === "accepted" && (typeof note !== "string" || note === "");
      if (typeof status !== "string" || !SETTABLE.has(status) || noteMissing) {
        return problem(res, 422, "request/validation", r.path, "bad status");
      }
      threat["status"] = status === "solved" ? "pending" : status;
      if (fields.has("status_note")) threat["status_note"] = fields.get("status_note");
      return send(res, 200, threat, json);
    }
    if (r.method === "POST" && sub === "update-note") {
      threat["note"] = fields.get("note");
      return send(res, 202);
    }
    if (r.method === "PUT" && sub === "external-references" && m[3] !== undefined) {
      const system = decodeURIComponent(m[3]);
      const refs = Array.isArray(threat["external_references"]) ? threat["external_references"] : [];
      const kept: unknown[] = refs.filter((x: { system?: unknown }) => x.system !== system);
      kept.push({
        system,
        external_id: fields.get("external_id"),
        url: fields.get("url"),
        linked_at: "2026-01-01T00:00:00Z",
      });
      threat["external_references"] = kept;
      return send(res, 204);
    }
    fake.unexpected.push(`${r.method} ${r.path}`);
    problem(res, 404, "path/not-allowlisted", r.path, "unknown endpoint");
  }

  return fake;
}

/** One page of a stream: cursors are `c<offset>`; see list rules 4 and 6 of the spec. */
function listPage(s: FakeStream, query: URLSearchParams): unknown {
  const limit = Number(query.get("limit") ?? "100");
  const cursor = query.get("cursor");
  const offset = cursor === null ? 0 : Number(/^c(\d+)$/.exec(cursor)?.[1] ?? Number.NaN);
  if (Number.isNaN(offset)) return "bad cursor";
  const visible = s.log.length - s.withheld;
  const items = s.log.slice(offset, Math.max(offset, Math.min(offset + limit, visible)));
  const end = offset + items.length;
  const nextCursor = end < visible || s.withheld > 0 ? `c${end}` : null;
  if (items.length === 0 && nextCursor !== null) {
    s.emptyPagesServed++;
    if (s.releaseAfterEmptyPages !== null && s.emptyPagesServed >= s.releaseAfterEmptyPages) s.withheld = 0;
  }
  if (s.envelope !== undefined) return s.envelope(items, nextCursor);
  return { [s.arrayProperty]: items, pagination: { next_cursor: nextCursor, page_size: items.length } };
}
