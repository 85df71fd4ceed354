import { Agent, type Dispatcher } from "undici";

/** One HTTP exchange over an undici dispatcher; no retries, no auth, no interpretation. */

export interface RawResponse {
  status: number;
  headers: Dispatcher.ResponseData["headers"];
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

/**
 * A keep-alive connection pool per origin. The timeouts bound every phase of a request so a
 * stalled platform cannot hang a cycle: connect, waiting for headers, and gaps in the body.
 */
export function createDispatcher(timeoutMs: number): Dispatcher {
  return new Agent({
    keepAliveTimeout: 10_000,
    keepAliveMaxTimeout: 60_000,
    connections: 8,
    connect: { timeout: Math.min(timeoutMs, 10_000) },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
}

/** Sends one request and reads the whole body; transport failures (reset, refused, timeouts) throw. */
export async function sendOnce(dispatcher: Dispatcher, req: RawRequest): Promise<RawResponse> {
  const res = await dispatcher.request({
    origin: req.url.origin,
    path: req.url.pathname + req.url.search,
    method: req.method,
    headers: req.headers,
    body: req.body ?? null,
    ...(req.signal === undefined ? {} : { signal: req.signal }),
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text };
}

/** First value of a response header (undici lower-cases names). */
export function headerValue(headers: RawResponse["headers"], name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** JSON of a body, `undefined` for an empty one; throws SyntaxError on anything else. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === "") return undefined;
  const value: unknown = JSON.parse(text);
  return value;
}
