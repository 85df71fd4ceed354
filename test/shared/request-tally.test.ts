import { describe, expect, it } from "vitest";
import { instrumentedFetch, type TransportStats } from "../../src/github/octokit-factory.js";
import { createRequestTally } from "../../src/shared/index.js";

describe("request tally (the method and status labels of the request counters)", () => {
  it("counts by method and status code; no answer is status error", () => {
    const tally = createRequestTally();
    tally.record("GET", 200);
    tally.record("get", 200);
    tally.record("PATCH", 409);
    tally.record("GET", "error");
    expect(tally.counts()).toEqual([
      { method: "GET", status: "200", count: 2 },
      { method: "PATCH", status: "409", count: 1 },
      { method: "GET", status: "error", count: 1 },
    ]);
  });

  it("keeps the label values bounded: unknown methods and impossible codes are other", () => {
    const tally = createRequestTally();
    for (const method of ["PROPFIND", "BREW", "x".repeat(100)]) tally.record(method, 200);
    for (const status of [0, 99, 600, 2000, 200.5]) tally.record("GET", status);
    expect(tally.counts()).toEqual([
      { method: "other", status: "200", count: 3 },
      { method: "GET", status: "other", count: 5 },
    ]);
  });
});

describe("GitHub's instrumented fetch", () => {
  it("tallies each request by its method and the answer's status, and a failed fetch as error", async () => {
    const stats: TransportStats = { requests: 0, rateLimitPoints: 0, notModified: 0 };
    const tally = createRequestTally();
    const answers = [new Response(null, { status: 304 }), new Response("{}", { status: 201 })];
    const base: typeof fetch = () => {
      const next = answers.shift();
      return next === undefined ? Promise.reject(new TypeError("fetch failed")) : Promise.resolve(next);
    };
    const f = instrumentedFetch(base, stats, 1000, tally);
    await f("http://127.0.0.1:1/repos/o/r/issues", { method: "GET" });
    await f("http://127.0.0.1:1/repos/o/r/issues", { method: "POST", body: "{}" });
    await expect(f("http://127.0.0.1:1/repos/o/r/issues/1", { method: "PATCH" })).rejects.toThrow(
      "fetch failed",
    );
    expect(tally.counts()).toEqual([
      { method: "GET", status: "304", count: 1 },
      { method: "POST", status: "201", count: 1 },
      { method: "PATCH", status: "error", count: 1 },
    ]);
    expect(stats).toEqual({ requests: 3, rateLimitPoints: 1, notModified: 1 });
  });
});
