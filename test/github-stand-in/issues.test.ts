import { describe, expect, it } from "vitest";
import { FULL, REPO, api, client, manualClock, statusOf, useStandIn } from "./helpers.js";

describe("GitHub stand-in: issues", () => {
  const start = useStandIn();

  it("creates an issue with new labels and answers 201 with the issue", async () => {
    const s = await start();
    const gh = client(s);
    const res = await gh.rest.issues.create({
      ...REPO,
      title: "SQL injection",
      body: "b",
      labels: ["threatbridge", "high"],
    });
    expect(res.status).toBe(201);
    expect(res.data.number).toBe(1);
    expect(res.data.state).toBe("open");
    expect(res.data.labels.map((l) => (typeof l === "string" ? l : l.name))).toEqual([
      "threatbridge",
      "high",
    ]);
    expect(res.data.html_url).toBe(`${s.url}/acme/security/issues/1`);
    expect(res.data.url).toBe(`${s.url}/repos/acme/security/issues/1`);
    expect(res.data.user?.login).toBe("threatbridge[bot]");
    const labels = await gh.rest.issues.listLabelsForRepo(REPO);
    expect(labels.data.map((l) => l.name).sort()).toEqual(["high", "threatbridge"]);
    expect(s.issues(FULL)).toHaveLength(1);
  });

  it("paginates lists through absolute Link URLs (rel next/last/prev/first)", async () => {
    const s = await start();
    const gh = client(s);
    for (let i = 1; i <= 7; i += 1) await gh.rest.issues.create({ ...REPO, title: `t${i}` });
    const first = await gh.rest.issues.listForRepo({ ...REPO, per_page: 3 });
    expect(first.data.map((i) => i.number)).toEqual([7, 6, 5]);
    expect(first.headers.link).toContain(
      `<${s.url}/repos/acme/security/issues?per_page=3&page=2>; rel="next"`,
    );
    expect(first.headers.link).toContain('page=3>; rel="last"');
    const second = await gh.rest.issues.listForRepo({ ...REPO, per_page: 3, page: 2 });
    expect(second.headers.link).toContain('rel="prev"');
    expect(second.headers.link).toContain('rel="first"');
    const all = await gh.paginate(gh.rest.issues.listForRepo, { ...REPO, per_page: 3, direction: "asc" });
    expect(all.map((i) => i.number)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it("clamps per_page to perPageMax, as GitHub clamps to 100", async () => {
    const s = await start({ perPageMax: 2 });
    const gh = client(s);
    for (let i = 1; i <= 3; i += 1) await gh.rest.issues.create({ ...REPO, title: `t${i}` });
    const res = await gh.rest.issues.listForRepo({ ...REPO, per_page: 100 });
    expect(res.data).toHaveLength(2);
  });

  it("filters by state (default open) and by labels, all of which must match", async () => {
    const s = await start();
    const gh = client(s);
    await gh.rest.issues.create({ ...REPO, title: "a", labels: ["threatbridge", "high"] });
    await gh.rest.issues.create({ ...REPO, title: "b", labels: ["threatbridge"] });
    await gh.rest.issues.create({ ...REPO, title: "c", labels: ["high"] });
    await gh.rest.issues.update({ ...REPO, issue_number: 2, state: "closed" });
    const both = await gh.rest.issues.listForRepo({ ...REPO, labels: "threatbridge,HIGH", state: "all" });
    expect(both.data.map((i) => i.title)).toEqual(["a"]);
    const open = await gh.rest.issues.listForRepo({ ...REPO, labels: "threatbridge" });
    expect(open.data.map((i) => i.title)).toEqual(["a"]);
    const closed = await gh.rest.issues.listForRepo({ ...REPO, state: "closed" });
    expect(closed.data.map((i) => i.title)).toEqual(["b"]);
  });

  it("since returns issues whose updated_at >= since, sorted by updated", async () => {
    const clock = manualClock();
    const s = await start({ clock });
    const gh = client(s);
    await gh.rest.issues.create({ ...REPO, title: "old" });
    clock.advance(60_000);
    await gh.rest.issues.create({ ...REPO, title: "new" });
    const mark = new Date(clock.now()).toISOString();
    clock.advance(60_000);
    s.person.comment(FULL, 1, "bumps updated_at", "alice");
    const res = await gh.rest.issues.listForRepo({ ...REPO, since: mark, sort: "updated", direction: "asc" });
    expect(res.data.map((i) => i.title)).toEqual(["new", "old"]);
    expect(res.data[1]?.comments).toBe(1);
  });

  it("lists pull requests among issues, carrying a pull_request key", async () => {
    const s = await start();
    const gh = client(s);
    await gh.rest.issues.create({ ...REPO, title: "issue", labels: ["threatbridge"] });
    const pr = s.person.openPullRequest(FULL, "a PR", ["threatbridge"], "alice");
    const res = await gh.rest.issues.listForRepo({ ...REPO, labels: "threatbridge" });
    const byNumber = new Map(res.data.map((i) => [i.number, i]));
    expect(byNumber.get(pr)?.pull_request?.url).toBe(`${s.url}/repos/acme/security/pulls/${pr}`);
    expect(byNumber.get(1)?.pull_request).toBeUndefined();
  });

  it("closes with a state_reason, shows closed_by, and reopens", async () => {
    const s = await start();
    const gh = client(s);
    await gh.rest.issues.create({ ...REPO, title: "x" });
    const closed = await gh.rest.issues.update({
      ...REPO,
      issue_number: 1,
      state: "closed",
      state_reason: "not_planned",
    });
    expect(closed.data.state_reason).toBe("not_planned");
    const got = await gh.rest.issues.get({ ...REPO, issue_number: 1 });
    expect(got.data.closed_by?.login).toBe("threatbridge[bot]");
    expect(got.data.closed_at).not.toBeNull();
    const reopened = await gh.rest.issues.update({ ...REPO, issue_number: 1, state: "open" });
    expect(reopened.data.state_reason).toBe("reopened");
    expect(reopened.data.closed_at).toBeNull();
  });

  it("answers 422 Validation Failed for a missing title, a bad state, and GitHub's length limits", async () => {
    const s = await start();
    const gh = client(s);
    const missing = await api(s, "POST", "/repos/acme/security/issues", { body: "no title" });
    expect(missing).toMatchObject({
      status: 422,
      data: { message: "Validation Failed", errors: [{ code: "missing_field", field: "title" }] },
    });
    await gh.rest.issues.create({ ...REPO, title: "x" });
    const badState = await api(s, "PATCH", "/repos/acme/security/issues/1", { state: "done" });
    expect(badState).toMatchObject({ status: 422, data: { errors: [{ field: "state", code: "invalid" }] } });
    expect(await statusOf(gh.rest.issues.create({ ...REPO, title: "x".repeat(257) }))).toBe(422);
    expect(await statusOf(gh.rest.issues.create({ ...REPO, title: "x".repeat(256) }))).toBe("resolved");
    expect(await statusOf(gh.rest.issues.create({ ...REPO, title: "t", body: "b".repeat(65_537) }))).toBe(
      422,
    );
    expect(
      await statusOf(gh.rest.issues.createComment({ ...REPO, issue_number: 1, body: "b".repeat(65_537) })),
    ).toBe(422);
    expect(s.issues(FULL)).toHaveLength(2);
  });

  it("answers 404 Not Found for unknown issues and routes", async () => {
    const s = await start();
    const gh = client(s);
    expect(await statusOf(gh.rest.issues.get({ ...REPO, issue_number: 99 }))).toBe(404);
    const res = await fetch(`${s.url}/nope`, { headers: { authorization: "token ghp_standin" } });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ message: "Not Found" });
    expect(res.headers.get("x-github-request-id")).toBeTruthy();
  });

  it("adds labels to an issue and comments on it", async () => {
    const s = await start();
    const gh = client(s);
    await gh.rest.issues.create({ ...REPO, title: "x", labels: ["a"] });
    const added = await gh.rest.issues.addLabels({ ...REPO, issue_number: 1, labels: ["b"] });
    expect(added.data.map((l) => l.name)).toEqual(["a", "b"]);
    const c = await gh.rest.issues.createComment({ ...REPO, issue_number: 1, body: "hello" });
    expect(c.status).toBe(201);
    expect(c.data.html_url).toBe(`${s.url}/acme/security/issues/1#issuecomment-${c.data.id}`);
    expect(s.comments(FULL, 1).map((x) => x.body)).toEqual(["hello"]);
    const listed = await gh.rest.issues.listComments({ ...REPO, issue_number: 1 });
    expect(listed.data.map((x) => x.body)).toEqual(["hello"]);
  });
});
