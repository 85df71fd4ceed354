import { afterEach, describe, expect, it } from "vitest";
import { createGitHub } from "../../src/github/index.js";
import {
  startGitHubStandIn,
  type RunningStandIn,
  type StandInOptions,
} from "../../src/github-stand-in/index.js";
import { fakeTime } from "./fake-time.js";

const REPO = "acme/threats";
let standIn: RunningStandIn | undefined;

afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
});

async function setUp(standInOpts: StandInOptions = {}) {
  const time = fakeTime(Date.parse("2026-11-26T10:00:00Z"));
  const s = await startGitHubStandIn({ clock: time.clock, ...standInOpts });
  standIn = s;
  const gh = createGitHub({
    apiUrl: s.url,
    auth: { token: "ghp_standin" },
    writeBudget: { perMinute: 0, perHour: 0, minIntervalMs: 0 },
    retryAfterBaseValue: 1,
    clock: time.clock,
    sleep: time.sleep,
  });
  const created = await gh.createIssue(REPO, { title: "t", body: "b", labels: [], assignees: [] });
  return { gh, s, time, number: created.number };
}

describe("GitHub gateway: a repository's comments in one listing (against the stand-in)", () => {
  it("reads every page; each comment names its issue, author and author type, the connector's own included", async () => {
    // The stand-in's pages hold at most 10 here, so 24 comments take three pages.
    const { gh, s, number } = await setUp({ perPageMax: 10 });
    for (let n = 0; n < 22; n++) s.person.comment(REPO, number, `c${n}`, "alice");
    s.person.comment(REPO, number, "from a bot", "dependabot[bot]");
    await gh.createComment(REPO, number, "the connector's own");
    const listed = await gh.listRepoComments(REPO, null);
    expect(listed.notModified).toBe(false);
    expect(listed.comments).toHaveLength(24);
    expect(listed.comments[0]).toMatchObject({
      repo: REPO,
      issueNumber: number,
      body: "c0",
      author: "alice",
      authorType: "User",
    });
    expect(listed.comments[22]).toMatchObject({ author: "dependabot[bot]", authorType: "Bot" });
    expect(listed.comments.map((c) => c.id)).toEqual(
      [...listed.comments.map((c) => c.id)].sort((a, b) => a - b),
    );
  });

  it("since keeps what was written or edited at or after it", async () => {
    const { gh, s, time, number } = await setUp();
    s.person.comment(REPO, number, "old", "alice");
    time.advance(60_000);
    const since = new Date(time.clock.now()).toISOString();
    time.advance(60_000);
    s.person.comment(REPO, number, "new", "bob");
    expect((await gh.listRepoComments(REPO, since)).comments.map((c) => c.body)).toEqual(["new"]);
    time.advance(60_000);
    s.person.editComment(REPO, s.comments(REPO, number)[0]?.id ?? -1, "old, edited");
    expect((await gh.listRepoComments(REPO, since)).comments.map((c) => c.body)).toEqual([
      "old, edited",
      "new",
    ]);
  });

  it("an idle listing is answered 304 to its ETag and costs no rate-limit point; a new comment is seen", async () => {
    const { gh, s, number } = await setUp();
    s.person.comment(REPO, number, "hi", "alice");
    const since = "2026-11-26T09:00:00Z";
    await gh.listRepoComments(REPO, since);
    const points = s.counters().rateLimitPoints;
    expect(await gh.listRepoComments(REPO, since)).toEqual({ notModified: true, comments: [] });
    expect(s.counters().rateLimitPoints).toBe(points);
    s.person.comment(REPO, number, "again", "bob");
    expect((await gh.listRepoComments(REPO, since)).comments.map((c) => c.body)).toEqual(["hi", "again"]);
  });

  it("a listing of several pages keeps no ETag: a comment added on a later page is not hidden by page 1's 304", async () => {
    const { gh, s, number } = await setUp({ perPageMax: 10 });
    for (let n = 0; n < 12; n++) s.person.comment(REPO, number, `c${n}`, "alice");
    expect((await gh.listRepoComments(REPO, null)).comments).toHaveLength(12);
    s.person.comment(REPO, number, "late", "bob");
    const again = await gh.listRepoComments(REPO, null);
    expect(again.notModified).toBe(false);
    expect(again.comments.at(-1)?.body).toBe("late");
  });
});
