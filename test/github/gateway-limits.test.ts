import { afterEach, describe, expect, it } from "vitest";
import { markerFor } from "../../src/shared/index.js";
import { fakeTime } from "./fake-time.js";
import { REPO, TOKEN, startHarness, type Harness } from "./harness.js";

const ISSUES = /^\/repos\/acme\/threats\/issues$/;
const SECONDARY = {
  kind: "answer" as const,
  status: 403,
  headers: { "retry-after": "3" },
  body: {
    message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
  },
};
const newIssue = {
  title: "t",
  body: markerFor("3f2b8c1e-9a4d-4e6f-8b2a-1c3d5e7f9a0b"),
  labels: [],
  assignees: [],
};
/** Test scale: one second of retry-after is 10 ms (the request policy's retryAfterBaseValue). */
const BASE = 10;
let h: Harness;

afterEach(async () => {
  expect(h.fake.unexpected).toEqual([]);
  await h.close();
});

describe("GitHub gateway: rate limits (REST docs, 'Rate limits for the REST API')", () => {
  it("a secondary limit on a create pauses ALL writes for the retry-after and is not retried", async () => {
    const time = fakeTime(Date.now());
    h = await startHarness({ clock: time.clock, sleep: time.sleep, retryAfterBaseValue: BASE });
    h.fake.addIssue(REPO);
    h.fake.faultNext("POST", ISSUES, SECONDARY);
    const t0 = time.clock.now();
    await expect(h.gh.createIssue(REPO, newIssue)).rejects.toMatchObject({
      code: "rate_limited",
      retryAfterMs: 3000,
    });
    expect(h.fake.requests.filter((r) => r.method === "POST")).toHaveLength(1);
    expect(h.fake.issues(REPO)).toHaveLength(1);
    expect(h.gh.stats().secondaryLimitHits).toBe(1);
    // A create is never sent again: /metrics counts no retry for it.
    expect(h.gh.stats().retries).toBe(0);
    expect(h.gh.budget.nextSlotAt()).toBe(t0 + 3 * BASE);

    // Any other write now waits out the pause first.
    await h.gh.createComment(REPO, 1, "after the pause");
    expect(time.clock.now()).toBeGreaterThanOrEqual(t0 + 3 * BASE);
    expect(time.sleeps.reduce((a, b) => a + b, 0)).toBe(3 * BASE);
    expect(h.logs.join("")).toContain("rate limit");
    expect(h.logs.join("")).not.toContain(TOKEN);
  });

  it("a secondary limit on a GET is waited out and retried by the request policy", async () => {
    h = await startHarness({ retryAfterBaseValue: BASE });
    h.fake.addIssue(REPO);
    h.fake.faultNext("GET", /issues\/1$/, SECONDARY);
    expect(await h.gh.getIssue(REPO, 1)).toMatchObject({ number: 1 });
    expect(h.fake.requests).toHaveLength(2);
    expect(h.gh.stats().secondaryLimitHits).toBe(1);
    // The second send is what threatbridge_github_retries_total counts.
    expect(h.gh.stats().retries).toBe(1);
  });

  it("a GET that keeps hitting the secondary limit gives up after a few retries with rate_limited", async () => {
    h = await startHarness({ retryAfterBaseValue: BASE });
    for (let i = 0; i < 5; i++) h.fake.faultNext("GET", /issues\/1$/, SECONDARY);
    await expect(h.gh.getIssue(REPO, 1)).rejects.toMatchObject({ code: "rate_limited" });
    expect(h.fake.requests).toHaveLength(3);
    expect(h.gh.stats().retries).toBe(2);
  });

  it("an exhausted primary limit with a far reset is rate_limited with the time to the reset", async () => {
    const time = fakeTime(Date.now());
    h = await startHarness({ clock: time.clock, sleep: time.sleep, retryAfterBaseValue: BASE });
    const reset = Math.floor(time.clock.now() / 1000) + 1800;
    h.fake.faultNext("GET", /issues\/1$/, {
      kind: "answer",
      status: 403,
      headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(reset) },
      body: { message: "API rate limit exceeded for user." },
    });
    const error = await h.gh.getIssue(REPO, 1).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "rate_limited" });
    expect(error).toHaveProperty("retryAfterMs", reset * 1000 - time.clock.now());
    expect(h.fake.requests).toHaveLength(1);
  });

  it("a 429 on a create is rate_limited (the request was refused, so its outcome is known)", async () => {
    h = await startHarness();
    h.fake.faultNext("POST", ISSUES, { kind: "answer", status: 429, headers: { "retry-after": "7" } });
    await expect(h.gh.createIssue(REPO, newIssue)).rejects.toMatchObject({
      code: "rate_limited",
      retryAfterMs: 7000,
    });
    expect(h.fake.requests).toHaveLength(1);
  });
});
