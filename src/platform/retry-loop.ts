import type { Logger } from "../observability/index.js";
import type { Clock, Sleep } from "../shared/clock.js";
import { attemptSignal } from "./deadline.js";
import { describeTransportError } from "./errors.js";
import { networkKindOf, type NetworkFailureKind } from "./failure-kind.js";
import type { RequestGate } from "./request-gate.js";
import { backoffMs, isRetryableStatus, retryAfterMs } from "./retry-policy.js";
import { headerValue, type HttpTransport, type RawRequest, type RawResponse } from "./transport.js";

/**
 * The one retry loop of every platform request, the token endpoint's too: the Retry-After gate,
 * a total deadline per attempt, capped back-off on 429/5xx and dropped connections, a stop that
 * ends the wait. What an answer means is the caller's.
 */

export interface RetryLoopOptions {
  http: HttpTransport;
  clock: Clock;
  sleep: Sleep;
  random: () => number;
  maxRetries: number;
  /** A Retry-After longer than this fails at once instead of stalling the cycle. */
  maxRetryAfterMs: number;
  /** Total deadline of one attempt, headers and body together. */
  timeoutMs: number;
  /** Fires when the process stops: the request in flight and any wait are abandoned. */
  stop?: AbortSignal | undefined;
  /** Retry-After honoured across requests (and, through the state, across processes). */
  gate: RequestGate;
  /** Removes credentials from transport messages before they go into an error. */
  scrub: (text: string) => string;
  logger: Logger;
}

/** One request as the loop sends it: how to build an attempt, what an answer means, which errors. */
export interface Exchange<T> {
  /** Said in the debug line of a retry, with `logFields`. */
  label: string;
  logFields: Record<string, unknown>;
  /** May it be sent again after a 429, 5xx or dropped connection (the spec's "Retry safety of writes"). */
  replaySafe: boolean;
  /** How long an attempt in flight may go on once the process stops (a write's grace); default 0. */
  stopGraceMs?: number;
  /** One attempt's request, built afresh (the API's reads the current bearer token). */
  request(): Promise<Omit<RawRequest, "signal">>;
  /** The caller's reading: a value ends the loop, "again" repeats without counting (a 401's renewal), undefined: the loop's rules. */
  answered(res: RawResponse): { value: T } | "again" | undefined;
  /** An answer that is not retried (or no longer): the error to throw. */
  refused(res: RawResponse): Error;
  stopped(): Error;
  /** Not sent: the gate holds past maxRetryAfterMs. */
  deferred(openAt: number): Error;
  /** No answer came: the kind and a scrubbed reason, the original as cause. */
  unreachable(err: unknown, kind: NetworkFailureKind, reason: string): Error;
  /** Each attempt sent, and each repeat (for the client's counters). */
  onAttempt?(): void;
  onRetry?(): void;
}

export async function sendWithRetries<T>(opts: RetryLoopOptions, ex: Exchange<T>): Promise<T> {
  let attempt = 0;

  /** A wait that a stop cuts short. */
  async function pause(ms: number): Promise<void> {
    try {
      await opts.sleep(ms, opts.stop);
    } catch (err) {
      if (opts.stop?.aborted) throw ex.stopped();
      throw err;
    }
  }

  const retrying = (fields: Record<string, unknown>): void => {
    ex.onRetry?.();
    opts.logger.debug({ ...ex.logFields, ...fields }, `${ex.label} failed, retrying`);
  };

  for (;;) {
    // Waits out a short Retry-After; a long one fails now, without sending (the state keeps it).
    const openAt = opts.gate.openAt();
    const gateWait = openAt - opts.clock.now();
    if (gateWait > 0) {
      if (gateWait > opts.maxRetryAfterMs) throw ex.deferred(openAt);
      await pause(gateWait);
    }
    const request = await ex.request();
    ex.onAttempt?.();

    let res: RawResponse;
    const deadline = attemptSignal(opts.timeoutMs, opts.stop, ex.stopGraceMs);
    try {
      res = await opts.http.send({ ...request, signal: deadline.signal });
    } catch (err) {
      if (opts.stop?.aborted) throw ex.stopped();
      const kind = deadline.timedOut() ? "network_timeout" : networkKindOf(err);
      const reason = deadline.timedOut()
        ? `no complete answer within ${opts.timeoutMs} ms`
        : opts.scrub(describeTransportError(err));
      if (!ex.replaySafe || attempt >= opts.maxRetries) throw ex.unreachable(err, kind, reason);
      const wait = backoffMs(attempt++, opts.random);
      retrying({ err: reason, kind, wait_ms: wait });
      await pause(wait);
      continue;
    } finally {
      deadline.done();
    }

    const meant = ex.answered(res);
    if (meant === "again") {
      ex.onRetry?.();
      continue;
    }
    if (meant !== undefined) return meant.value;
    // A 429's or 503's Retry-After ("Errors" rule 1) holds for every later request of this client.
    const retryable = isRetryableStatus(res.status);
    const asked = retryable ? retryAfterMs(headerValue(res.headers, "retry-after"), opts.clock) : undefined;
    if (asked !== undefined) opts.gate.deferUntil(opts.clock.now() + asked);
    if (
      ex.replaySafe &&
      retryable &&
      attempt < opts.maxRetries &&
      (asked === undefined || asked <= opts.maxRetryAfterMs)
    ) {
      // Retry-After is a floor: the gate makes the next attempt wait for it.
      const wait = asked === undefined ? backoffMs(attempt, opts.random) : 0;
      attempt++;
      retrying({
        status: res.status,
        request_id: headerValue(res.headers, "x-request-id"),
        wait_ms: asked ?? wait,
      });
      if (wait > 0) await pause(wait);
      continue;
    }
    throw ex.refused(res);
  }
}
