import { describe, expect, it } from "vitest";
import { FULL, REPO, api, client, manualClock, useStandIn } from "./helpers.js";

interface ListedComment {
  id: number;
  body: string;
  issue_url: string;
  user: { login: string; type: string };
  created_at: string;
  updated_at: string;
}

describe("GitHub stand-in: the repository-wide comment listing (GET /repos/{o}/{r}/issues/comments)", () => {
  const start = useStandIn();

  it("since keeps comments updated at or after it, an edited old comment included", async () => {
    const clock = manualClock();
    const s = await start({ clock });
    await client(s).rest.issues.create({ ...REPO, title: "a" });
    s.person.comment(FULL, 1, "old", "alice");
    clock.advance(60_000);
    const since = new Date(clock.now()).toISOString();
    clock.advance(60_000);
    s.person.comment(FULL, 1, "new", "bob");
    expect(
      (
        (await api(s, "GET", `/repos/acme/security/issues/comments?since=${since}`)).data as ListedComment[]
      ).map((c) => c.body),
    ).toEqual(["new"]);
    const oldId = s.comments(FULL, 1)[0]?.id ?? -1;
    s.person.editComment(FULL, oldId, "old, edited");
    const after = (await api(s, "GET", `/repos/acme/security/issues/comments?since=${since}`))
      .data as ListedComment[];
    expect(after.map((c) => c.body)).toEqual(["old, edited", "new"]);
    expect(after[0]?.created_at).not.toBe(after[0]?.updated_at);
  });

  it("each comment names its issue, author, author type (User or Bot) and times", async () => {
    const s = await start();
    await client(s).rest.issues.create({ ...REPO, title: "a" });
    s.person.comment(FULL, 1, "by a person", "alice");
    s.person.comment(FULL, 1, "by a bot", "dependabot[bot]");
    const listed = (await api(s, "GET", "/repos/acme/security/issues/comments")).data as ListedComment[];
    expect(listed).toMatchObject([
      { body: "by a person", user: { login: "alice", type: "User" } },
      { body: "by a bot", user: { login: "dependabot[bot]", type: "Bot" } },
    ]);
    expect(listed[0]?.issue_url).toMatch(/\/repos\/acme\/security\/issues\/1$/);
  });

  it("pages with Link headers; sort=updated&direction=desc puts the last edit first", async () => {
    const clock = manualClock();
    const s = await start({ clock });
    await client(s).rest.issues.create({ ...REPO, title: "a" });
    for (const body of ["one", "two", "three"]) {
      s.person.comment(FULL, 1, body, "alice");
      clock.advance(1000);
    }
    const page = await api(s, "GET", "/repos/acme/security/issues/comments?per_page=2");
    expect((page.data as ListedComment[]).map((c) => c.body)).toEqual(["one", "two"]);
    expect(page.headers.get("link")).toMatch(/page=2>; rel="next"/);
    s.person.editComment(FULL, s.comments(FULL, 1)[0]?.id ?? -1, "one, edited");
    const desc = await api(s, "GET", "/repos/acme/security/issues/comments?sort=updated&direction=desc");
    expect((desc.data as ListedComment[]).map((c) => c.body)).toEqual(["one, edited", "three", "two"]);
  });

  it("an unchanged listing answers 304 to its ETag, at no rate-limit cost", async () => {
    const s = await start();
    await client(s).rest.issues.create({ ...REPO, title: "a" });
    s.person.comment(FULL, 1, "hi", "alice");
    const first = await api(s, "GET", "/repos/acme/security/issues/comments?since=2020-01-01T00:00:00Z");
    const points = s.counters().rateLimitPoints;
    const again = await fetch(`${s.url}/repos/acme/security/issues/comments?since=2020-01-01T00:00:00Z`, {
      headers: { authorization: "token ghp_standin", "if-none-match": first.headers.get("etag") ?? "" },
    });
    expect(again.status).toBe(304);
    expect(s.counters().rateLimitPoints).toBe(points);
  });
});
