import { describe, expect, it } from "vitest";
import { silentLogger } from "../../src/observability/index.js";
import { createRequestGate } from "../../src/platform/request-gate.js";
import { sendWithRetries, type Exchange, type RetryLoopOptions } from "../../src/platform/retry-loop.js";
import type { HttpTransport, RawRequest, RawResponse } from "../../src/platform/transport.js";

/** A platform that answers from a script, one entry per request; an unexpected request fails. */
function scripted(answers: (RawResponse | Error)[]): HttpTransport & { sent: RawRequest[] } {
  const sent: RawRequest[] = [];
  return {
    sent,
    send(req) {
      sent.push(req);
      const next = answers.shift();
      if (next === undefined) throw new Error(`unexpected request ${req.method} ${req.url.pathname}`);
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
    },
    close: () => Promise.resolve(),
  };
}

const answer = (status: number, headers: Record<string, string> = {}, text = ""): RawResponse => ({
  status,
  headers,
  text,
});
const reset = (): Error => Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });

function setup(http: HttpTransport, stop?: AbortController) {
  let now = 1_000_000;
  const sleeps: number[] = [];
  const opts: RetryLoopOptions = {
    http,
    clock: { now: () => now },
    sleep: (ms, signal) => {
      if (signal?.aborted) return Promise.reject(new Error("stopped"));
      sleeps.push(ms);
      now += ms;
      return Promise.resolve();
    },
    random: () => 0,
    maxRetries: 3,
    maxRetryAfterMs: 60_000,
    timeoutMs: 5_000,
    stop: stop?.signal,
    gate: createRequestGate(),
    scrub: (t) => t,
    logger: silentLogger,
  };
  const exchange = (replaySafe: boolean): Exchange<number> => ({
    label: "test request",
    logFields: {},
    replaySafe,
    request: () => Promise.resolve({ method: "GET", url: new URL("http://127.0.0.1:9/v1/x"), headers: {} }),
    answered: (res) => (res.status === 200 ? { value: res.status } : undefined),
    refused: (res) => new Error(`refused ${res.status}`),
    stopped: () => new Error("abandoned: stopping"),
    deferred: (openAt) => new Error(`deferred until ${openAt}`),
    unreachable: (_err, kind) => new Error(`unreachable: ${kind}`),
  });
  return { opts, sleeps, exchange };
}

describe("the one platform retry loop (spec: Errors rule 1, Retry safety of writes)", () => {
  it("Errors rule 1: a 429 is retried after the Retry-After, and the next request waits for it too", async () => {
    const http = scripted([answer(429, { "retry-after": "7" }), answer(200), answer(200)]);
    const { opts, sleeps, exchange } = setup(http);
    await expect(sendWithRetries(opts, exchange(true))).resolves.toBe(200);
    expect(sleeps).toEqual([7_000]);
    expect(http.sent).toHaveLength(2);
  });

  it("a 500 or a dropped connection is retried with capped exponential backoff, then fails with the cause's kind", async () => {
    const http = scripted([answer(500), reset(), answer(503), reset()]);
    const { opts, sleeps, exchange } = setup(http);
    await expect(sendWithRetries(opts, exchange(true))).rejects.toThrow("unreachable: network_reset");
    // random() = 0: half of each doubling step (250, 500, 1000 ms).
    expect(sleeps).toEqual([125, 250, 500]);
    expect(http.sent).toHaveLength(4);
  });

  it("Retry safety of writes: a write that is not replay-safe is sent once, whatever went wrong", async () => {
    const dropped = setup(scripted([reset()]));
    await expect(sendWithRetries(dropped.opts, dropped.exchange(false))).rejects.toThrow("unreachable");
    const failed = setup(scripted([answer(500)]));
    await expect(sendWithRetries(failed.opts, failed.exchange(false))).rejects.toThrow("refused 500");
    expect([...dropped.sleeps, ...failed.sleeps]).toEqual([]);
  });

  it("a Retry-After past maxRetryAfterMs fails at once, and holds back the next request without sending it", async () => {
    const http = scripted([answer(429, { "retry-after": "600" })]);
    const { opts, exchange } = setup(http);
    await expect(sendWithRetries(opts, exchange(true))).rejects.toThrow("refused 429");
    await expect(sendWithRetries(opts, exchange(true))).rejects.toThrow(/^deferred until/);
    expect(http.sent).toHaveLength(1);
  });

  it("a stop abandons the backoff wait: the caller's stopped error, no further attempt", async () => {
    const stop = new AbortController();
    const http = scripted([reset()]);
    const { opts, exchange } = setup(http, stop);
    http.send = (req) => {
      http.sent.push(req);
      stop.abort();
      return Promise.reject(reset());
    };
    await expect(sendWithRetries(opts, exchange(true))).rejects.toThrow("abandoned: stopping");
    expect(http.sent).toHaveLength(1);
  });
});
