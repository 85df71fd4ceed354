import { afterEach, describe, expect, it } from "vitest";
import { GitHubError } from "../../src/github/index.js";
import { markerFor } from "../../src/shared/index.js";
import { fakeTime } from "./fake-time.js";
import { REPO, TOKEN, startHarness, type Harness } from "./harness.js";

const THREAT = "3f2b8c1e-9a4d-4e6f-8b2a-1c3d5e7f9a0b";
const ISSUES = /^\/repos\/acme\/threats\/issues$/;
const newIssue = {
  title: "Leaked credential",
  body: `text\n\n${markerFor(THREAT)}`,
  labels: ["urgent"],
  assignees: ["alice"],
};
let h: Harness;

afterEach(async () => {
  expect(h.fake.unexpected).toEqual([]);
  await h.close();
});

const posts = (): number => h.fake.requests.filter((r) => r.method === "POST").length;

describe("GitHub gateway: writes", () => {
  it("creates an issue with the managed label and reads its marker back", async () => {
    h = await startHarness();
    const issue = await h.gh.createIssue(REPO, newIssue);
    expect(issue).toMatchObject({
      repo: REPO,
      number: 1,
      state: "open",
      threatId: THREAT,
      assignees: ["alice"],
    });
    expect(issue.labels).toEqual(["threatbridge", "urgent"]);
    expect(h.fake.issues(REPO)[0]?.labels).toEqual(["threatbridge", "urgent"]);
    expect(h.gh.stats().writes).toBe(1);
    expect(h.gh.budget.snapshot().acquired).toBe(1);
  });

  it("a create whose response is lost is outcome_unknown, sent exactly once, and found by its marker", async () => {
    h = await startHarness();
    h.fake.faultNext("POST", ISSUES, { kind: "lose" });
    const error = await h.gh.createIssue(REPO, newIssue).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubError);
    expect(error).toMatchObject({ code: "outcome_unknown" });
    expect(posts()).toBe(1);
    // The issue was created: the caller resolves the unknown outcome by looking, not re-sending.
    expect(h.fake.issues(REPO)).toHaveLength(1);
    expect(await h.gh.findIssueByMarker(REPO, THREAT)).toMatchObject({ number: 1 });
    expect(posts()).toBe(1);
  });

  it("a create answered 5xx is outcome_unknown and never retried", async () => {
    h = await startHarness();
    h.fake.faultNext("POST", ISSUES, { kind: "answer", status: 502 });
    await expect(h.gh.createIssue(REPO, newIssue)).rejects.toMatchObject({
      code: "outcome_unknown",
      status: 502,
    });
    expect(posts()).toBe(1);
  });

  it("a create that times out is outcome_unknown and never retried", async () => {
    h = await startHarness({ timeoutMs: 200 });
    h.fake.faultNext("POST", ISSUES, { kind: "hang" });
    await expect(h.gh.createIssue(REPO, newIssue)).rejects.toMatchObject({ code: "outcome_unknown" });
    expect(posts()).toBe(1);
  });

  it("a comment whose response is lost is outcome_unknown and sent once", async () => {
    h = await startHarness();
    h.fake.addIssue(REPO);
    h.fake.faultNext("POST", /\/comments$/, { kind: "lose" });
    await expect(h.gh.createComment(REPO, 1, "asset removed")).rejects.toMatchObject({
      code: "outcome_unknown",
    });
    expect(posts()).toBe(1);
    expect(h.fake.comments(REPO, 1)).toHaveLength(1);
    expect(await h.gh.listComments(REPO, 1)).toEqual([{ id: expect.any(Number), body: "asset removed" }]);
  });

  it("a GET answered 5xx is retried and succeeds", async () => {
    h = await startHarness();
    h.fake.addIssue(REPO);
    h.fake.faultNext("GET", /issues\/1$/, { kind: "answer", status: 503 });
    h.fake.faultNext("GET", /issues\/1$/, { kind: "lose" });
    expect(await h.gh.getIssue(REPO, 1)).toMatchObject({ number: 1 });
    expect(h.fake.requests.filter((r) => r.method === "GET")).toHaveLength(3);
  });

  it("an update answered 5xx is retried (PATCH is idempotent)", async () => {
    h = await startHarness();
    h.fake.addIssue(REPO, { labels: ["threatbridge"] });
    h.fake.faultNext("PATCH", /issues\/1$/, { kind: "answer", status: 500 });
    const closed = await h.gh.updateIssue(REPO, 1, { state: "closed", stateReason: "not_planned" });
    expect(closed).toMatchObject({ state: "closed", stateReason: "not_planned" });
    expect(h.fake.requests.filter((r) => r.method === "PATCH").map((r) => r.body)).toEqual([
      { state: "closed", state_reason: "not_planned" },
      { state: "closed", state_reason: "not_planned" },
    ]);
  });

  it("an update that sets labels keeps the managed label; an empty update sends no write", async () => {
    h = await startHarness();
    h.fake.addIssue(REPO, { labels: ["threatbridge"] });
    expect((await h.gh.updateIssue(REPO, 1, { labels: ["high"] })).labels).toEqual(["threatbridge", "high"]);
    const writes = h.gh.stats().writes;
    expect(await h.gh.updateIssue(REPO, 1, {})).toMatchObject({ number: 1 });
    expect(h.gh.stats().writes).toBe(writes);
    expect(h.fake.requests.filter((r) => r.method === "PATCH")).toHaveLength(1);
  });

  it("maps answers to stable codes: 422 validation, 404 not_found, 401 unauthorized", async () => {
    h = await startHarness();
    h.fake.faultNext("POST", ISSUES, { kind: "answer", status: 422, body: { message: "Validation Failed" } });
    await expect(h.gh.createIssue(REPO, newIssue)).rejects.toMatchObject({ code: "validation", status: 422 });
    await expect(h.gh.updateIssue(REPO, 9, { title: "x" })).rejects.toMatchObject({ code: "not_found" });
    h.fake.faultNext("GET", /^\/user$/, {
      kind: "answer",
      status: 401,
      body: { message: "Bad credentials" },
    });
    await expect(h.gh.whoAmI()).rejects.toMatchObject({ code: "unauthorized" });
  });

  it("no token reaches an error or a log line", async () => {
    h = await startHarness();
    h.fake.faultNext("GET", /^\/user$/, {
      kind: "answer",
      status: 401,
      body: { message: "Bad credentials" },
    });
    const error = await h.gh.whoAmI().catch((e: unknown) => e);
    h.fake.faultNext("POST", ISSUES, { kind: "lose" });
    const lost = await h.gh.createIssue(REPO, newIssue).catch((e: unknown) => e);
    for (const e of [error, lost]) {
      expect(e).toBeInstanceOf(GitHubError);
      const text =
        e instanceof GitHubError
          ? `${e.message} ${JSON.stringify(e)} ${JSON.stringify(e.request)} ${String(e.stack)}`
          : "";
      expect(text).not.toContain(TOKEN);
      expect(e instanceof GitHubError ? e.request : null).toMatchObject({
        method: expect.any(String),
        url: expect.stringContaining(h.fake.url),
      });
    }
    expect(h.logs.join("")).not.toContain(TOKEN);
  });

  it("a write past the deadline is not sent (budget_deadline)", async () => {
    const time = fakeTime(Date.now());
    h = await startHarness({
      writeBudget: { perMinute: 1, perHour: 0, minIntervalMs: 0 },
      clock: time.clock,
      sleep: time.sleep,
    });
    await h.gh.createIssue(REPO, newIssue, { deadlineMs: time.clock.now() });
    await expect(
      h.gh.createIssue(REPO, newIssue, { deadlineMs: time.clock.now() + 1000 }),
    ).rejects.toMatchObject({ code: "budget_deadline" });
    expect(posts()).toBe(1);
  });

  it("every write waits for the budget", async () => {
    const time = fakeTime(Date.now());
    h = await startHarness({
      writeBudget: { perMinute: 2, perHour: 0, minIntervalMs: 0 },
      clock: time.clock,
      sleep: time.sleep,
    });
    const t0 = time.clock.now();
    await h.gh.createIssue(REPO, newIssue);
    await h.gh.createComment(REPO, 1, "c");
    await h.gh.updateIssue(REPO, 1, { title: "t" });
    expect(time.clock.now() - t0).toBe(60_000);
    expect(h.gh.stats().writes).toBe(3);
  });
});

describe("GitHub gateway: a stop (contract, run: exit within 5 s whatever GitHub is doing)", () => {
  it("a write waiting on the write budget ends at once as `stopped` when the process stops, and is not sent", async () => {
    const stop = new AbortController();
    h = await startHarness({
      writeBudget: { perMinute: 0, perHour: 0, minIntervalMs: 60_000 },
      stop: stop.signal,
    });
    await h.gh.createIssue(REPO, newIssue);
    // The next slot is a minute away: the create waits for it.
    const waiting = h.gh.createIssue(REPO, newIssue).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 20));
    stop.abort(new Error("stopping"));
    expect(await waiting).toMatchObject({ name: "GitHubError", code: "stopped" });
    expect(posts()).toBe(1);
  });
});
