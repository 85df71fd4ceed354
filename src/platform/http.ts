import type { Clock, Sleep } from "../shared/clock.js";
import type { Logger } from "../observability/index.js";
import { attemptSignal } from "./deadline.js";
import {
  PlatformDeferredError,
  PlatformNetworkError,
  PlatformResponseError,
  PlatformStoppedError,
  describeTransportError,
  problemFromBody,
  type RequestInfo,
} from "./errors.js";
import { networkKindOf } from "./failure-kind.js";
import type { RequestGate } from "./request-gate.js";
import { backoffMs, isRetryableStatus, retryAfterMs } from "./retry-policy.js";
import type { TokenCache } from "./token-cache.js";
import { headerValue, parseJsonBody, type HttpTransport, type RawResponse } from "./transport.js";

/**
 * Authenticated JSON requests to the platform API with retries. A hand-written loop rather than a
 * library's retry: the retry must re-read the bearer token after a 401, and every wait must go
 * through the injected `sleep` so tests never wait for real.
 */

export interface ApiRequest {
  method: "GET" | "POST" | "PUT" | "PATCH";
  /** Path below `baseUrl`, already encoded, e.g. `/v1/threats/abc`. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /**
   * May the request be sent again after a 429, a 5xx or a dropped connection? True for reads and
   * for the three writes of the spec's "Retry safety of writes" table (upserts and set-value
   * writes reach the same end state when replayed).
   */
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

export interface ApiTransportOptions {
  baseUrl: string;
  http: HttpTransport;
  tokens: TokenCache;
  clock: Clock;
  sleep: Sleep;
  random: () => number;
  maxRetries: number;
  /** A 429 asking for a longer wait than this fails at once instead of stalling the cycle. */
  maxRetryAfterMs: number;
  /** Total deadline of one attempt, headers and body together. */
  timeoutMs: number;
  /** Fires when the process stops: the request in flight is abandoned. */
  stop?: AbortSignal | undefined;
  /** Retry-After honoured across requests (and, through the state, across processes). */
  gate: RequestGate;
  /** Removes credentials from server text before it goes into an error. */
  scrub: (text: string) => string;
  logger: Logger;
}

export interface ApiCounters {
  requests: number;
  retries: number;
}

export interface ApiTransport {
  send(req: ApiRequest): Promise<ApiResponse>;
  readonly counters: Readonly<ApiCounters>;
}

export function createApiTransport(opts: ApiTransportOptions): ApiTransport {
  const base = opts.baseUrl.replace(/\/+$/, "");
  const counters: ApiCounters = { requests: 0, retries: 0 };

  async function send(req: ApiRequest): Promise<ApiResponse> {
    const url = new URL(base + req.path);
    for (const [k, v] of Object.entries(req.query ?? {})) url.searchParams.set(k, v);
    const info: RequestInfo = { method: req.method, path: url.pathname };
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);
    let attempt = 0;
    let reauthenticated = false;

    for (;;) {
      await waitForGate(info);
      const token = await opts.tokens.get();
      const headers: Record<string, string> = {
        accept: "application/json",
        authorization: `Bearer ${token}`,
      };
      if (body !== undefined) headers["content-type"] = "application/json";
      counters.requests++;

      let res: RawResponse;
      const deadline = attemptSignal(opts.timeoutMs, opts.stop);
      try {
        res = await opts.http.send({
          method: req.method,
          url,
          headers,
          ...(body === undefined ? {} : { body }),
          signal: deadline.signal,
        });
      } catch (err) {
        if (opts.stop?.aborted) throw new PlatformStoppedError(info);
        const kind = deadline.timedOut() ? "network_timeout" : networkKindOf(err);
        const reason = deadline.timedOut()
          ? `no complete answer within ${opts.timeoutMs} ms`
          : opts.scrub(describeTransportError(err));
        if (!req.replaySafe || attempt >= opts.maxRetries) {
          throw new PlatformNetworkError(info, reason, { cause: err, kind });
        }
        const wait = backoffMs(attempt++, opts.random);
        counters.retries++;
        opts.logger.debug(
          { ...info, error: reason, kind, waitMs: wait },
          "platform request failed, retrying",
        );
        await pause(wait, info);
        continue;
      } finally {
        deadline.done();
      }

      const requestId = headerValue(res.headers, "x-request-id");
      // Contract: "any 401 on a request that carried a token gets one new token and one retry".
      if (res.status === 401 && !reauthenticated) {
        reauthenticated = true;
        opts.tokens.invalidate(token);
        counters.retries++;
        opts.logger.debug({ ...info, requestId }, "platform answered 401, renewing the token once");
        continue;
      }
      if (res.status >= 200 && res.status < 300) {
        const parsed = req.readBody === false ? undefined : parseSuccessBody(res, info, requestId);
        return { status: res.status, body: parsed, requestId, info };
      }
      // 429 always carries Retry-After ("Errors" rule 1); a 503 may (RFC 9110 §10.2.3): honour both,
      // for every request of this client and for later cycles, not just for this retry.
      const asked = isRetryableStatus(res.status)
        ? retryAfterMs(headerValue(res.headers, "retry-after"), opts.clock)
        : undefined;
      if (asked !== undefined) opts.gate.deferUntil(opts.clock.now() + asked);
      if (req.replaySafe && isRetryableStatus(res.status) && attempt < opts.maxRetries) {
        if (asked === undefined || asked <= opts.maxRetryAfterMs) {
          // Retry-After is a floor: the gate makes the next attempt wait for it ("Errors" rule 1).
          const wait = asked === undefined ? backoffMs(attempt, opts.random) : 0;
          attempt++;
          counters.retries++;
          opts.logger.debug(
            { ...info, status: res.status, requestId, waitMs: asked ?? wait },
            "platform request failed, retrying",
          );
          if (wait > 0) await pause(wait, info);
          continue;
        }
      }
      throw problemFromBody({ ...info, status: res.status, requestId }, safeJson(opts.scrub(res.text)));
    }
  }

  /** Waits out a short Retry-After; a long one fails now, without sending (the state keeps it). */
  async function waitForGate(info: RequestInfo): Promise<void> {
    const openAt = opts.gate.openAt();
    const wait = openAt - opts.clock.now();
    if (wait <= 0) return;
    if (wait > opts.maxRetryAfterMs) throw new PlatformDeferredError(info, openAt);
    await pause(wait, info);
  }

  /** A wait that a stop cuts short. */
  async function pause(ms: number, info: RequestInfo): Promise<void> {
    try {
      await opts.sleep(ms, opts.stop);
    } catch (err) {
      if (opts.stop?.aborted) throw new PlatformStoppedError(info);
      throw err;
    }
  }

  return { send, counters };
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
