import { afterEach, describe, expect, it } from "vitest";
import { markerFor } from "../../src/shared/index.js";
import { REPO, TOKEN, gatewayFor, startHarness, type Harness } from "./harness.js";
import { compareIso } from "../../src/shared/iso-time.js";

const THREAT = "3f2b8c1e-9a4d-4e6f-8b2a-1c3d5e7f9a0b";
let h: Harness;

afterEach(async () => {
  expect(h.fake.unexpected).toEqual([]);
  await h.close();
});

describe("GitHub gateway: reads", () => {
  it("sends the API version, the token and the user agent on every request", async () => {
    h = await startHarness({ userAgent: "threatbridge-test/1" });
    h.fake.addIssue(REPO, { labels: ["threatbridge"] });
    await h.gh.listChangedIssues(REPO, null);
    await h.gh.getIssue(REPO, 1);
    expect(h.fake.requests).toHaveLength(2);
    for (const request of h.fake.requests) {
      expect(request.headers["x-github-api-version"]).toBe("2022-11-28");
      expect(request.headers.authorization).toBe(`token ${TOKEN}`);
      expect(request.headers["user-agent"]).toMatch(/^threatbridge-test\/1/);
    }
  });

  it("lists issues changed since a time whatever their labels (a person may remove the managed label), oldest change first, all pages, without pull requests", async () => {
    h = await startHarness();
    for (let i = 0; i < 150; i++) h.fake.addIssue(REPO, { labels: ["threatbridge"], title: `t${i}` });
    h.fake.addIssue(REPO, { labels: ["other"] });
    h.fake.addIssue(REPO, { labels: ["threatbridge"], pull_request: { url: "x" } });
    const all = await h.gh.listChangedIssues(REPO, null);
    expect(all.notModified).toBe(false);
    expect(all.consistent).toBe(true);
    // A person may remove the managed label: the issue without it is listed too.
    expect(all.issues).toHaveLength(151);
    expect(all.issues.map((i) => i.number)).toEqual([...Array(151).keys()].map((i) => i + 1));
    const first = h.fake.requests[0];
    // One fixed query URL (newest change first, no `since`, no label), so that its ETag outlives a cycle.
    expect(Object.fromEntries(first?.query ?? [])).toEqual({
      state: "all",
      sort: "updated",
      direction: "desc",
      per_page: "100",
    });
    // Two pages, then page 1 again, conditionally, to prove nothing moved while paging.
    expect(h.fake.requests).toHaveLength(3);
    expect(h.fake.requests[2]?.headers["if-none-match"]).toMatch(/^W\/"/);

    h.fake.personEdit(REPO, 7, { state: "closed", state_reason: "completed" });
    const since = h.fake.issues(REPO)[6]?.updated_at ?? "";
    const changed = await h.gh.listChangedIssues(REPO, since);
    expect(changed.issues).toMatchObject([
      { number: 7, state: "closed", stateReason: "completed", repo: REPO },
    ]);
    expect(h.fake.requests.at(-1)?.query.get("since")).toBeNull();
  });

  it("orders changes by the instant, not the text: a server writing `…:00Z` beside `…:00.500Z` loses no change past the watermark", async () => {
    h = await startHarness();
    // GitHub writes whole seconds; a stand-in may write milliseconds too. As text `…:00Z` sorts
    // after `…:00.500Z`, so a text comparison would take #2 (half a second later) for older.
    h.fake.addIssue(REPO, { labels: ["threatbridge"], updated_at: "2026-11-28T10:00:00Z" });
    h.fake.addIssue(REPO, { labels: ["threatbridge"], updated_at: "2026-11-28T10:00:00.500Z" });
    const changed = await h.gh.listChangedIssues(REPO, "2026-11-28T10:00:00Z");
    expect(changed.issues.map((i) => i.number)).toEqual([1, 2]);
    expect(compareIso("2026-11-28T10:00:00Z", "2026-11-28T10:00:00.500Z")).toBeLessThan(0);
    expect(compareIso("2026-11-28T10:00:00.000Z", "2026-11-28T10:00:00Z")).toBe(0);
    expect(compareIso("2026-11-28T11:00:00+01:00", "2026-11-28T10:00:00Z")).toBe(0);
  });

  it("a repeated change query is conditional: 304 answers notModified and costs no rate-limit point", async () => {
    h = await startHarness();
    h.fake.addIssue(REPO, { labels: ["threatbridge"] });
    const first = await h.gh.listChangedIssues(REPO, null);
    expect(first.issues).toHaveLength(1);
    const before = h.gh.stats();

    const again = await h.gh.listChangedIssues(REPO, null);
    expect(again).toEqual({ notModified: true, issues: [], consistent: true });
    expect(h.fake.requests.at(-1)?.headers["if-none-match"]).toMatch(/^W\/"/);
    const after = h.gh.stats();
    expect(after.rateLimitPoints).toBe(before.rateLimitPoints);
    expect(after.notModified).toBe(before.notModified + 1);
    expect(after.requests).toBe(before.requests + 1);

    h.fake.personEdit(REPO, 1, { title: "renamed by a person" });
    const changed = await h.gh.listChangedIssues(REPO, null);
    expect(changed.notModified).toBe(false);
    expect(changed.issues[0]?.title).toBe("renamed by a person");
  });

  it("ETags survive export and import into a new gateway", async () => {
    h = await startHarness();
    h.fake.addIssue(REPO, { labels: ["threatbridge"] });
    await h.gh.listChangedIssues(REPO, null);
    const saved: unknown = JSON.parse(JSON.stringify(h.gh.exportEtags()));
    const restarted = gatewayFor(h.fake).gh;
    restarted.importEtags(saved);
    expect(await restarted.listChangedIssues(REPO, null)).toEqual({
      notModified: true,
      issues: [],
      consistent: true,
    });
    expect(restarted.stats()).toMatchObject({ requests: 1, notModified: 1, rateLimitPoints: 0 });
    // Data that is not an export is ignored whole, leaving the cache as it was.
    restarted.importEtags({ not: "etags" });
    expect(restarted.exportEtags()).toEqual(saved);
  });

  it("a change query that spans several pages is cached only once page 1 is seen unchanged after the read", async () => {
    h = await startHarness();
    for (let i = 0; i < 120; i++) h.fake.addIssue(REPO, { labels: ["threatbridge"] });
    const first = await h.gh.listChangedIssues(REPO, null);
    expect(first.consistent).toBe(true);
    const again = await h.gh.listChangedIssues(REPO, null);
    expect(again.notModified).toBe(true);
    expect(h.fake.requests.map((r) => r.headers["if-none-match"] === undefined)).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(h.gh.stats().rateLimitPoints).toBe(2);
  });

  it("an issue GitHub sends malformed is skipped and reported, the others come through, and nothing moves past it", async () => {
    h = await startHarness();
    h.fake.addIssue(REPO, { labels: ["threatbridge"], title: "good one" });
    const bad = h.fake.addIssue(REPO, { labels: ["threatbridge"] });
    Reflect.set(bad, "title", null); // a title must be a string
    h.fake.addIssue(REPO, { labels: ["threatbridge"], title: "good two" });
    const result = await h.gh.listChangedIssues(REPO, null);
    expect(result.issues.map((i) => i.title)).toEqual(["good one", "good two"]);
    expect(result.consistent).toBe(false);
    expect(h.gh.exportEtags()).toEqual([]); // read in full again next cycle, not a 304
  });

  it("a poll whose changes fit on page 1 is one request: the walk ends at the page that reached the watermark", async () => {
    h = await startHarness();
    for (let i = 0; i < 150; i++) h.fake.addIssue(REPO, { labels: ["threatbridge"], title: `t${i}` });
    await h.gh.listChangedIssues(REPO, null);
    const since = h.fake.issues(REPO)[149]?.updated_at ?? "";
    h.fake.personEdit(REPO, 7, { state: "closed", state_reason: "completed" });
    h.fake.personEdit(REPO, 20, { title: "edited by a person" });
    const before = h.fake.requests.length;
    const changed = await h.gh.listChangedIssues(REPO, since);
    expect(changed.issues.map((i) => i.number)).toEqual([150, 7, 20]);
    expect(changed.consistent).toBe(true);
    // Page 1 only: no page 2, and no second look at page 1 (that is only needed after several pages).
    expect(h.fake.requests.length - before).toBe(1);
    // Its ETag is kept: nothing changed since, so the next poll is a 304.
    expect((await h.gh.listChangedIssues(REPO, since)).notModified).toBe(true);
  });

  it("a server that ignores `direction` (oldest first) is read in full: no change since the watermark is missed", async () => {
    h = await startHarness({}, { ignoreDirection: true });
    for (let i = 0; i < 130; i++) h.fake.addIssue(REPO, { labels: ["threatbridge"], title: `t${i}` });
    const since = h.fake.issues(REPO)[60]?.updated_at ?? "";
    h.fake.personEdit(REPO, 120, { title: "edited by a person" });
    const changed = await h.gh.listChangedIssues(REPO, since);
    const titles = changed.issues.map((i) => i.title);
    expect(titles).toContain("edited by a person");
    expect(titles).not.toContain("t10"); // older than the watermark
    expect(titles.at(-1)).toBe("edited by a person"); // oldest change first, as always
  });

  it("finds the issue carrying a threat's marker across pages with the list endpoint", async () => {
    h = await startHarness();
    h.fake.addIssue(REPO, { labels: ["threatbridge"], body: `old\n${markerFor(THREAT)}` });
    for (let i = 0; i < 230; i++) h.fake.addIssue(REPO, { labels: ["threatbridge"], body: "another threat" });
    const found = await h.gh.findIssueByMarker(REPO, THREAT);
    expect(found).toMatchObject({ number: 1, threatId: THREAT, repo: REPO });
    expect(h.fake.requests.map((r) => r.path)).toEqual(Array(3).fill(`/repos/${REPO}/issues`));
    expect(Object.fromEntries(h.fake.requests[0]?.query ?? [])).toMatchObject({
      sort: "created",
      direction: "desc",
      labels: "threatbridge",
    });
    expect(await h.gh.findIssueByMarker(REPO, "00000000-0000-4000-8000-000000000000")).toBeNull();
  });

  it("with createdSince, scans only issues touched since then, labelled or not", async () => {
    h = await startHarness();
    for (let i = 0; i < 150; i++) h.fake.addIssue(REPO, { labels: ["threatbridge"] });
    h.fake.advance(3_600_000);
    const fresh = h.fake.addIssue(REPO, { labels: [], body: markerFor(THREAT) });
    expect(await h.gh.findIssueByMarker(REPO, THREAT, fresh.created_at)).toMatchObject({ number: 151 });
    // Ten minutes earlier than asked: the connector's clock may run ahead of GitHub's.
    const since = new Date(Date.parse(fresh.created_at) - 600_000).toISOString();
    expect(h.fake.requests.at(-1)?.query.get("since")).toBe(since);
    expect(h.fake.requests.at(-1)?.query.has("labels")).toBe(false);

    const before = h.fake.requests.length;
    expect(
      await h.gh.findIssueByMarker(REPO, "00000000-0000-4000-8000-000000000000", fresh.created_at),
    ).toBeNull();
    expect(h.fake.requests.length - before).toBe(1);
  });

  it("getIssue answers a snapshot, and null for a missing issue or a pull request", async () => {
    h = await startHarness();
    h.fake.addIssue(REPO, {
      labels: ["threatbridge", "urgent"],
      assignees: ["alice"],
      body: markerFor(THREAT),
      title: "T",
    });
    h.fake.addIssue(REPO, { pull_request: { url: "x" } });
    expect(await h.gh.getIssue(REPO, 1)).toEqual({
      repo: REPO,
      number: 1,
      // GitHub's id of the issue, which the sub-issue and duplicate endpoints take.
      id: h.fake.issues(REPO)[0]?.id,
      url: `https://github.test/${REPO}/issues/1`,
      state: "open",
      stateReason: null,
      title: "T",
      body: markerFor(THREAT),
      labels: ["threatbridge", "urgent"],
      assignees: ["alice"],
      updatedAt: h.fake.issues(REPO)[0]?.updated_at,
      threatId: THREAT,
      // No milestone: an SLA's weekly milestone is read back from here after a lost state file.
      milestone: null,
    });
    expect(await h.gh.getIssue(REPO, 2)).toBeNull();
    expect(await h.gh.getIssue(REPO, 99)).toBeNull();
  });

  it("rejects a repository name that is not owner/name without sending anything", async () => {
    h = await startHarness();
    await expect(h.gh.getIssue("acme/threats/../x", 1)).rejects.toMatchObject({ code: "validation" });
    expect(h.fake.requests).toEqual([]);
  });

  it("whoAmI asks once and remembers", async () => {
    h = await startHarness({}, { login: "tb-bot" });
    expect(await h.gh.whoAmI()).toBe("tb-bot");
    expect(await h.gh.whoAmI()).toBe("tb-bot");
    expect(h.fake.requests.filter((r) => r.path === "/user")).toHaveLength(1);
  });

  it("lastStateChange tells a person's close from the connector's own, reading the newest events", async () => {
    h = await startHarness({}, { login: "tb-bot" });
    h.fake.addIssue(REPO, { labels: ["threatbridge"] });
    const app = { id: 1, slug: "some-app" };
    for (let i = 0; i < 130; i++)
      h.fake.addEvent(REPO, 1, {
        event: "labeled",
        actor: { login: "x" },
        performed_via_github_app: null,
        state_reason: null,
      });
    h.fake.addEvent(REPO, 1, {
      event: "closed",
      actor: { login: "alice" },
      performed_via_github_app: null,
      state_reason: "not_planned",
    });
    h.fake.addEvent(REPO, 1, {
      event: "labeled",
      actor: { login: "x" },
      performed_via_github_app: null,
      state_reason: null,
    });
    expect(await h.gh.lastStateChange(REPO, 1)).toEqual({
      event: "closed",
      login: "alice",
      viaApp: false,
      bySelf: false,
      stateReason: "not_planned",
    });

    h.fake.addEvent(REPO, 1, {
      event: "reopened",
      actor: { login: "tb-bot" },
      performed_via_github_app: null,
      state_reason: null,
    });
    expect(await h.gh.lastStateChange(REPO, 1)).toMatchObject({
      event: "reopened",
      login: "tb-bot",
      bySelf: true,
    });

    h.fake.addEvent(REPO, 1, {
      event: "closed",
      actor: { login: "github-actions[bot]" },
      performed_via_github_app: app,
      state_reason: "completed",
    });
    expect(await h.gh.lastStateChange(REPO, 1)).toMatchObject({
      event: "closed",
      viaApp: true,
      bySelf: false,
    });
  });

  it("lastStateChange is null for an issue never closed; a ghost actor is reported as ghost", async () => {
    h = await startHarness();
    h.fake.addIssue(REPO);
    expect(await h.gh.lastStateChange(REPO, 1)).toBeNull();
    h.fake.addEvent(REPO, 1, {
      event: "closed",
      actor: null,
      performed_via_github_app: null,
      state_reason: null,
    });
    expect(await h.gh.lastStateChange(REPO, 1)).toMatchObject({ login: "ghost", bySelf: false });
  });

  it("lists every comment of an issue", async () => {
    h = await startHarness();
    h.fake.addIssue(REPO);
    for (let i = 0; i < 105; i++) h.fake.addComment(REPO, 1, `c${i}`);
    const comments = await h.gh.listComments(REPO, 1);
    expect(comments).toHaveLength(105);
    expect(comments[104]?.body).toBe("c104");
  });
});
