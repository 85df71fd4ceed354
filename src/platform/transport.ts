import type { Dispatcher } from "undici";
import { loadUndiciParts, type UndiciParts } from "./undici-parts.js";

/** One HTTP exchange over an undici dispatcher; undici is loaded on the first request, not at start. */

export interface RawResponse {
  status: number;
  /** Lower-cased names, as undici gives them. */
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface RawRequest {
  method: "GET" | "POST" | "PUT" | "PATCH";
  url: URL;
  headers: Record<string, string>;
  body?: string;
  /** Aborts the request, headers and body alike (the total deadline, or a stop). */
  signal?: AbortSignal;
}

/** Keep-alive connections to the platform, shared by the token endpoint and the API. */
export interface HttpTransport {
  send(req: RawRequest): Promise<RawResponse>;
  /** Closes the connections; later sends open new ones. */
  close(): Promise<void>;
}

/** A keep-alive pool per origin; the timeouts bound each phase a total deadline cannot tell apart. */
export function createHttpTransport(timeoutMs: number): HttpTransport {
  let agent: Promise<{ parts: UndiciParts; pool: Dispatcher }> | null = null;
  const dispatcher = (): Promise<{ parts: UndiciParts; pool: Dispatcher }> =>
    (agent ??= loadUndiciParts().then((parts) => ({
      parts,
      pool: new parts.Agent({
        connections: 8,
        keepAliveTimeout: 10_000,
        keepAliveMaxTimeout: 60_000,
        connect: { timeout: Math.min(timeoutMs, 10_000) },
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      }),
    })));
  return {
    send: async (req) => sendOnce(await dispatcher(), req, timeoutMs),
    close: async () => {
      const open = agent;
      agent = null;
      // destroy, not close: a request still in flight at exit is abandoned, not waited for.
      if (open !== null) await (await open).pool.destroy();
    },
  };
}

/** Sends one request and reads the whole body; transport failures (reset, refused, timeouts) throw. */
async function sendOnce(
  { parts, pool }: { parts: UndiciParts; pool: Dispatcher },
  req: RawRequest,
  totalMs: number,
): Promise<RawResponse> {
  const total = AbortSignal.timeout(totalMs);
  const res = await parts.request(pool, {
    origin: req.url.origin,
    path: req.url.pathname + req.url.search,
    method: req.method,
    headers: req.headers,
    body: req.body ?? null,
    signal: req.signal === undefined ? total : AbortSignal.any([req.signal, total]),
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text };
}

/** First value of a response header (names are lower-cased). */
export function headerValue(headers: RawResponse["headers"], name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** JSON of a body, `undefined` for an empty body; throws SyntaxError on anything else. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === "") return undefined;
  const value: unknown = JSON.parse(text);
  return value;
}
