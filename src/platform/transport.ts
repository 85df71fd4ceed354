import http, { type IncomingHttpHeaders } from "node:http";
import https from "node:https";

/**
 * One HTTP exchange with the platform; no retries, no auth, no interpretation. Built on Node's own
 * `http`/`https` rather than undici: loading undici costs every `sync` and `check` about a tenth
 * of a second at start, for nothing the platform's plain JSON requests need.
 */

export interface RawResponse {
  status: number;
  /** Lower-cased names, as Node gives them. */
  headers: IncomingHttpHeaders;
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
  /** Closes the idle connections; later sends open new ones. */
  close(): Promise<void>;
}

/** A transport failure, with a code `networkKindOf` tells apart (a timeout, here). */
class TransportError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "TransportError";
  }
}

/**
 * A keep-alive pool per origin (at most 8 connections, idle ones closed after 10 s). The timeouts
 * bound what the caller's total deadline cannot tell apart: the connect (at most 10 s), and, for
 * a caller without a deadline, the whole exchange.
 */
export function createHttpTransport(timeoutMs: number): HttpTransport {
  const options = { keepAlive: true, maxSockets: 8, maxFreeSockets: 8, timeout: 10_000 };
  const agents = { http: new http.Agent(options), https: new https.Agent(options) };
  const connectMs = Math.min(timeoutMs, 10_000);
  return {
    send: (req) =>
      sendOnce(req.url.protocol === "https:" ? agents.https : agents.http, req, connectMs, timeoutMs),
    close: () => {
      agents.http.destroy();
      agents.https.destroy();
      return Promise.resolve();
    },
  };
}

function sendOnce(
  agent: http.Agent,
  req: RawRequest,
  connectMs: number,
  totalMs: number,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const signal = req.signal;
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const request = (req.url.protocol === "https:" ? https : http).request(req.url, {
      agent,
      method: req.method,
      headers:
        req.body === undefined
          ? req.headers
          : { ...req.headers, "content-length": Buffer.byteLength(req.body) },
    });
    let settled = false;
    const finish = (error: Error | null, res?: RawResponse): void => {
      if (settled) return;
      settled = true;
      clearTimeout(total);
      clearTimeout(connect);
      signal?.removeEventListener("abort", onAbort);
      if (error !== null) {
        request.destroy();
        reject(error);
      } else if (res !== undefined) resolve(res);
    };
    const onAbort = (): void => finish(signal ? abortReason(signal) : new Error("aborted"));
    signal?.addEventListener("abort", onAbort, { once: true });
    const total = setTimeout(
      () => finish(new TransportError("ETIMEDOUT", `no complete answer within ${totalMs} ms`)),
      totalMs,
    );
    let connect: NodeJS.Timeout | undefined;
    request.on("socket", (socket) => {
      // A pooled connection is already up; a new one gets its own, shorter bound.
      if (!socket.connecting) return;
      connect = setTimeout(
        () => finish(new TransportError("ETIMEDOUT", `connect timeout after ${connectMs} ms`)),
        connectMs,
      );
      socket.once("connect", () => clearTimeout(connect));
    });
    request.on("error", (err) => finish(err));
    request.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", (err) => finish(err));
      // Closed before the whole body came: the platform dropped the connection mid-answer.
      res.on("close", () => {
        if (!res.complete) finish(new TransportError("ECONNRESET", "the connection closed mid-body"));
      });
      res.on("end", () =>
        finish(null, {
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString("utf8"),
        }),
      );
    });
    request.end(req.body);
  });
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error("aborted");
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
