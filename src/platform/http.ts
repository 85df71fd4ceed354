import {
  PlatformDeferredError,
  PlatformNetworkError,
  PlatformResponseError,
  PlatformStoppedError,
  problemFromBody,
  type RequestInfo,
} from "./errors.js";
import { sendWithRetries, type RetryLoopOptions } from "./retry-loop.js";
import type { TokenCache } from "./token-cache.js";
import { createRequestTally, type RequestTally } from "../shared/request-tally.js";
import { headerValue, parseJsonBody, type HttpTransport, type RawResponse } from "./transport.js";

/** Authenticated JSON requests with retries: a 401 renews the token, every wait goes through `sleep`. */

export interface ApiRequest {
  method: "GET" | "POST" | "PUT" | "PATCH";
  /** Path below `baseUrl`, already encoded, e.g. `/v1/threats/abc`. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** May it be sent again after a 429, 5xx or dropped connection: reads, and the spec's replay-safe writes. */
  replaySafe: boolean;
  /** False for writes answered 202/204: a stray body must not turn a done write into an error. */
  readBody?: boolean;
}

export interface ApiResponse {
  status: number;
  /** Parsed JSON, or undefined for an empty body. */
  body: unknown;
  requestId: string | undefined;
  info: RequestInfo;
}

/** The retry loop's options, plus where requests go and the token they carry. */
export interface ApiTransportOptions extends Omit<RetryLoopOptions, "scrub"> {
  baseUrl: string;
  /** How long a write in flight may still take once the process stops (IN_FLIGHT_WRITE_GRACE_MS). */
  writeGraceMs: number;
  tokens: TokenCache;
  /** Removes credentials from server text before it goes into an error. */
  scrub: (text: string) => string;
}

export interface ApiCounters {
  requests: number;
  retries: number;
  /** The attempts by method and status (`error` when no answer came), for `/metrics`. */
  readonly byOutcome: RequestTally;
}

export interface ApiTransport {
  send(req: ApiRequest): Promise<ApiResponse>;
  readonly counters: Readonly<ApiCounters>;
}

export function createApiTransport(opts: ApiTransportOptions): ApiTransport {
  const base = opts.baseUrl.replace(/\/+$/, "");
  const counters: ApiCounters = { requests: 0, retries: 0, byOutcome: createRequestTally() };
  const loop: RetryLoopOptions = { ...opts, http: tallied(opts.http, counters.byOutcome) };

  async function send(req: ApiRequest): Promise<ApiResponse> {
    const url = new URL(base + req.path);
    for (const [k, v] of Object.entries(req.query ?? {})) url.searchParams.set(k, v);
    const info: RequestInfo = { method: req.method, path: url.pathname };
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);
    let token = "";
    let reauthenticated = false;

    return sendWithRetries<ApiResponse>(loop, {
      label: "platform request",
      logFields: { ...info },
      replaySafe: req.replaySafe,
      // The write in flight is finished on a stop (within its grace); a read is abandoned.
      stopGraceMs: req.method === "GET" ? 0 : opts.writeGraceMs,
      async request() {
        token = await opts.tokens.get();
        const headers: Record<string, string> = {
          accept: "application/json",
          authorization: `Bearer ${token}`,
        };
        if (body !== undefined) headers["content-type"] = "application/json";
        return { method: req.method, url, headers, ...(body === undefined ? {} : { body }) };
      },
      answered(res) {
        const requestId = headerValue(res.headers, "x-request-id");
        // Contract: "any 401 on a request that carried a token gets one new token and one retry".
        if (res.status === 401 && !reauthenticated) {
          reauthenticated = true;
          opts.tokens.invalidate(token);
          opts.logger.debug(
            { ...info, request_id: requestId },
            "platform answered 401, renewing the token once",
          );
          return "again";
        }
        if (res.status < 200 || res.status >= 300) return undefined;
        const parsed = req.readBody === false ? undefined : parseSuccessBody(res, info, requestId);
        return { value: { status: res.status, body: parsed, requestId, info } };
      },
      refused: (res) =>
        problemFromBody(
          { ...info, status: res.status, requestId: headerValue(res.headers, "x-request-id") },
          safeJson(opts.scrub(res.text)),
        ),
      stopped: () => new PlatformStoppedError(info),
      deferred: (openAt) => new PlatformDeferredError(info, openAt),
      unreachable: (err, kind, reason) => new PlatformNetworkError(info, reason, { cause: err, kind }),
      onAttempt: () => void counters.requests++,
      onRetry: () => void counters.retries++,
    });
  }

  return { send, counters };
}

/** Counts each attempt the loop sends by what came of it: the answer's status, or none. */
function tallied(http: HttpTransport, tally: RequestTally): HttpTransport {
  return {
    async send(req) {
      try {
        const res = await http.send(req);
        tally.record(req.method, res.status);
        return res;
      } catch (error) {
        tally.record(req.method, "error");
        throw error;
      }
    },
    close: () => http.close(),
  };
}

function parseSuccessBody(res: RawResponse, info: RequestInfo, requestId: string | undefined): unknown {
  try {
    return parseJsonBody(res.text);
  } catch (err) {
    throw new PlatformResponseError({ ...info, status: res.status, requestId }, "not JSON", { cause: err });
  }
}

function safeJson(text: string): unknown {
  try {
    return parseJsonBody(text);
  } catch {
    return undefined;
  }
}
