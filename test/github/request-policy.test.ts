import { afterEach, describe, expect, it, vi } from "vitest";
import { markerFor } from "../../src/shared/index.js";
import type { Sleep } from "../../src/shared/clock.js";
import { createRequestPolicy, type LimitEvent, type RequestPolicy } from "../../src/github/request-policy.js";
import { fakeTime, type FakeTime } from "./fake-time.js";
import { REPO, startHarness, type Harness } from "./harness.js";

/**
 * The request policy that replaced @octokit/plugin-throttling and @octokit/plugin-retry (to cut
 * the time per new issue): it must keep what they gave (GitHub's rate limits, retries of idempotent
 * requests, creates sent once, writes one at a time) and add no timer when there is nothing to
 * wait for.
 */

/** An Octokit RequestError as Octokit throws it: status, message, the request, the answer. */
function requestError(status: number, message: string, headers: Record<string, string> = {}) {
  return Object.assign(new Error(message), {
    status,
    request: { method: "GET", url: "https://api.github.test/x", headers: {} },
    response: { status, url: "https://api.github.test/x", headers, data: { message } },
  });
}

/** A stand-in GitHub for one request: answers from a script, one entry per attempt, and counts. */
function scripted(answers: Array<unknown>): { attempt: () => Promise<string>; attempts: () => number } {
  let n = 0;
  return {
    attempt: () => {
      const answer = answers[Math.min(n, answers.length - 1)];
      n++;
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(String(answer));
    },
    attempts: () => n,
  };
}

/** A deferred answer, so a test decides when GitHub answers. */
function deferred(): { promise: Promise<string>; resolve: (v: string) => void } {
  let resolve: (v: string) => void = () => undefined;
  const promise = new Promise<string>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

let time: FakeTime;
let limits: LimitEvent[];

function policy(onLimit: (e: LimitEvent) => boolean = () => false): RequestPolicy {
  time = fakeTime(Date.parse("2026-03-01T00:00:00Z"));
  limits = [];
  return createRequestPolicy({
    retryAfterBaseValue: 1000,
    clock: time.clock,
    sleep: time.sleep,
    onLimit: (event) => {
      limits.push(event);
      return onLimit(event);
    },
  });
}

const GET = { method: "GET", url: "/repos/acme/threats/issues/1" };

describe("request policy: retries (what @octokit/plugin-retry gave)", () => {
  it("a 5xx or a network failure of an idempotent request is retried with back-off 1, 4, 9 s, then passed on", async () => {
    const send = policy();
    for (const method of ["GET", "PATCH", "PUT"]) {
      // Octokit reports a network failure or a timeout as a 500 without an answer.
      const s = scripted([requestError(502, "Bad Gateway"), requestError(500, "fetch failed"), "ok"]);
      await expect(send({ ...GET, method }, s.attempt)).resolves.toBe("ok");
      expect(s.attempts()).toBe(3);
    }
    const failing = scripted([requestError(503, "Unavailable")]);
    time.sleeps.length = 0;
    await expect(send(GET, failing.attempt)).rejects.toMatchObject({ status: 503 });
    expect(failing.attempts()).toBe(4);
    expect(time.sleeps).toEqual([1000, 4000, 9000]);
  });

  it("a create (POST) or a DELETE that fails with 5xx is sent exactly once: its outcome is for the caller to find out", async () => {
    const send = policy();
    for (const method of ["POST", "DELETE"]) {
      const s = scripted([requestError(502, "Bad Gateway"), "ok"]);
      await expect(send({ method, url: "/repos/acme/threats/issues" }, s.attempt)).rejects.toMatchObject({
        status: 502,
      });
      expect(s.attempts()).toBe(1);
    }
    expect(time.sleeps).toEqual([]);
  });

  it("answers GitHub would give again (400, 401, 404, 410, 422) are not retried", async () => {
    const send = policy();
    for (const status of [400, 401, 404, 410, 422]) {
      const s = scripted([requestError(status, "no"), "ok"]);
      await expect(send(GET, s.attempt)).rejects.toMatchObject({ status });
      expect(s.attempts()).toBe(1);
    }
  });
});

describe("request policy: rate limits (REST docs, 'Rate limits for the REST API')", () => {
  const secondary = (headers: Record<string, string>) =>
    requestError(403, "You have exceeded a secondary rate limit. Please wait a few minutes.", headers);

  it("a secondary limit is reported with its retry-after; a yes waits it out and sends again", async () => {
    const send = policy(() => true);
    const s = scripted([secondary({ "retry-after": "7" }), "ok"]);
    await expect(send(GET, s.attempt)).resolves.toBe("ok");
    expect(limits).toEqual([
      { kind: "secondary", retryAfterSeconds: 7, method: "GET", url: GET.url, retryCount: 0 },
    ]);
    expect(time.sleeps).toEqual([7000]);
  });

  it("a secondary limit without retry-after waits a minute; a no passes the answer on unsent", async () => {
    const send = policy(() => false);
    const s = scripted([secondary({}), "ok"]);
    await expect(
      send({ method: "POST", url: "/repos/acme/threats/issues" }, s.attempt),
    ).rejects.toMatchObject({
      status: 403,
    });
    expect(limits[0]).toMatchObject({ kind: "secondary", retryAfterSeconds: 60, method: "POST" });
    expect(s.attempts()).toBe(1);
    expect(time.sleeps).toEqual([]);
  });

  it("an exhausted primary limit (x-ratelimit-remaining: 0) waits until a second after x-ratelimit-reset", async () => {
    const send = policy((e) => e.retryCount < 1);
    const reset = Math.floor(time.clock.now() / 1000) + 30;
    const primary = requestError(429, "API rate limit exceeded", {
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": String(reset),
    });
    const s = scripted([primary, primary, "ok"]);
    await expect(send(GET, s.attempt)).rejects.toMatchObject({ status: 429 });
    expect(limits.map((e) => [e.kind, e.retryAfterSeconds, e.retryCount])).toEqual([
      ["primary", 31, 0],
      ["primary", 0, 1],
    ]);
    expect(s.attempts()).toBe(2);
  });

  it("a 403 that is no rate limit (a missing permission) is passed on at once", async () => {
    const send = policy(() => true);
    const s = scripted([requestError(403, "Resource not accessible by integration"), "ok"]);
    await expect(send(GET, s.attempt)).rejects.toMatchObject({ status: 403 });
    expect(limits).toEqual([]);
    expect(s.attempts()).toBe(1);
  });
});

describe("request policy: concurrency", () => {
  it("GitHub's 'make requests serially': a write is not sent while another is in flight; reads are", async () => {
    const send = policy();
    const first = deferred();
    const sent: string[] = [];
    const a = send({ method: "PATCH", url: "/repos/acme/threats/issues/1" }, () => {
      sent.push("patch 1");
      return first.promise;
    });
    const b = send({ method: "POST", url: "/repos/acme/threats/issues" }, () => {
      sent.push("post");
      return Promise.resolve("created");
    });
    const c = send(GET, () => {
      sent.push("get");
      return Promise.resolve("read");
    });
    await expect(c).resolves.toBe("read");
    expect(sent).toEqual(["patch 1", "get"]);
    first.resolve("patched");
    await expect(Promise.all([a, b])).resolves.toEqual(["patched", "created"]);
    expect(sent).toEqual(["patch 1", "get", "post"]);
  });

  it("an App's installation token, fetched from inside a write's auth hook, does not wait behind that write", async () => {
    const send = policy();
    const issue = await send({ method: "POST", url: "/repos/acme/threats/issues" }, () =>
      send({ method: "POST", url: "/app/installations/42/access_tokens" }, () =>
        Promise.resolve("token"),
      ).then((token) => `created with ${token}`),
    );
    expect(issue).toBe("created with token");
  });
});

describe("request policy: no timer when there is nothing to wait for", () => {
  let h: Harness | null = null;
  afterEach(async () => {
    vi.useRealTimers();
    expect(h?.fake.unexpected).toEqual([]);
    await h?.close();
    h = null;
  });

  it("with the timers frozen, a create and a read through the gateway complete (the throttling plugin's Bottleneck needed timers)", async () => {
    h = await startHarness();
    vi.useFakeTimers({ toFake: ["setTimeout", "setInterval", "setImmediate"] });
    const issue = await h.gh.createIssue(REPO, {
      title: "t",
      body: markerFor("3f2b8c1e-9a4d-4e6f-8b2a-1c3d5e7f9a0b"),
      labels: [],
      assignees: [],
    });
    expect(await h.gh.getIssue(REPO, issue.number)).toMatchObject({ number: issue.number });
  });
});

describe("request policy: a stop (contract, run: exit within 5 s whatever GitHub is doing)", () => {
  /** A sleep that ends only when aborted, and says when a wait began. */
  function parkedSleep(): { sleep: Sleep; waiting: Promise<number> } {
    let began: (ms: number) => void = () => undefined;
    const waiting = new Promise<number>((resolve) => (began = resolve));
    const sleep: Sleep = (ms, signal) =>
      new Promise((_, reject) => {
        began(ms);
        signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
      });
    return { sleep, waiting };
  }

  function stoppable(sleep: Sleep, stop: AbortSignal): RequestPolicy {
    return createRequestPolicy({
      retryAfterBaseValue: 1000,
      clock: { now: () => Date.parse("2026-03-01T00:00:00Z") },
      sleep,
      onLimit: () => true,
      stop,
    });
  }

  it("ends a back-off wait at once as `stopped` (not a refusal, not GitHub's 5xx), and sends nothing more", async () => {
    const stop = new AbortController();
    const parked = parkedSleep();
    const s = scripted([requestError(502, "Bad Gateway"), "ok"]);
    const sent = stoppable(parked.sleep, stop.signal)(GET, s.attempt);
    expect(await parked.waiting).toBe(1000);
    stop.abort(new Error("stopping"));
    await expect(sent).rejects.toMatchObject({ name: "GitHubError", code: "stopped", status: null });
    expect(s.attempts()).toBe(1);
  });

  it("ends a rate limit's wait the same way, and starts no request once stopped", async () => {
    const stop = new AbortController();
    const parked = parkedSleep();
    const limited = scripted([
      requestError(403, "You have exceeded a secondary rate limit", { "retry-after": "60" }),
    ]);
    const send = stoppable(parked.sleep, stop.signal);
    const sent = send(GET, limited.attempt);
    expect(await parked.waiting).toBe(60_000);
    stop.abort(new Error("stopping"));
    await expect(sent).rejects.toMatchObject({ code: "stopped" });
    const later = scripted(["ok"]);
    await expect(
      send({ method: "POST", url: "/repos/acme/threats/issues" }, later.attempt),
    ).rejects.toMatchObject({
      code: "stopped",
    });
    expect(later.attempts()).toBe(0);
  });
});
