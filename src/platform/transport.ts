import type { Dispatcher } from "undici";
import { loadUndiciParts, type UndiciParts } from "./undici-parts.js";

/**
 * One HTTP exchange with the platform over an undici dispatcher; no retries, no auth, no
 * interpretation. undici is loaded on the first request, not at start: `status`, `config` and
 * `retry` never reach the platform, and loading it costs a start-up about a tenth of a second.
 */

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

/**
 * A keep-alive pool per origin (at most 8 connections, idle ones closed after 10 s). The timeouts
 * bound each phase a total deadline cannot tell apart: the connect (at most 10 s), the wait for
 * the headers, the gaps in the body; and, for a caller without a deadline, the whole exchange.
 */
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
