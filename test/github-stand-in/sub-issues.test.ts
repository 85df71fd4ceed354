import { describe, expect, it } from "vitest";
import type { RunningStandIn } from "../../src/github-stand-in/index.js";
import { FULL, REPO, api, client, statusOf, useStandIn } from "./helpers.js";

/** GitHub's sub-issues REST API ("REST API endpoints for sub-issues"), as the stand-in serves it. */
describe("GitHub stand-in: sub-issues", () => {
  const start = useStandIn();

  async function issues(
    s: RunningStandIn,
    n: number,
    repo = REPO,
  ): Promise<Array<{ id: number; number: number }>> {
    const gh = client(s);
    const out: Array<{ id: number; number: number }> = [];
    for (let i = 0; i < n; i++) {
      const created = await gh.rest.issues.create({ ...repo, title: `t${i}` });
      out.push({ id: created.data.id, number: created.data.number });
    }
    return out;
  }

  it("add names the child by issue id; list, parent and the summary follow it", async () => {
    const s = await start();
    const gh = client(s);
    const [parent, a, b] = await issues(s, 3);
    if (!parent || !a || !b) throw new Error("setup");
    const added = await gh.rest.issues.addSubIssue({
      ...REPO,
      issue_number: parent.number,
      sub_issue_id: a.id,
    });
    expect(added.status).toBe(201);
    expect(added.data.number).toBe(parent.number);
    expect(added.data.sub_issues_summary).toEqual({ total: 1, completed: 0, percent_completed: 0 });
    await gh.rest.issues.addSubIssue({ ...REPO, issue_number: parent.number, sub_issue_id: b.id });
    await gh.rest.issues.update({ ...REPO, issue_number: b.number, state: "closed" });
    const list = await gh.rest.issues.listSubIssues({ ...REPO, issue_number: parent.number });
    expect(list.data.map((i) => i.number)).toEqual([a.number, b.number]);
    const got = await gh.rest.issues.get({ ...REPO, issue_number: parent.number });
    expect(got.data.sub_issues_summary).toEqual({ total: 2, completed: 1, percent_completed: 50 });
    const up = await gh.rest.issues.getParent({ ...REPO, issue_number: a.number });
    expect(up.data.number).toBe(parent.number);
    const child = await gh.rest.issues.get({ ...REPO, issue_number: a.number });
    expect(child.data.parent_issue_url).toBe(`${s.url}/repos/${FULL}/issues/${parent.number}`);
    expect(s.issues(FULL).find((i) => i.number === a.number)?.parentId).toBe(parent.id);
  });

  it("the issue number in place of its id is refused (422), not taken for another issue", async () => {
    const s = await start();
    const [parent, child] = await issues(s, 2);
    if (!parent || !child) throw new Error("setup");
    const res = await api(s, "POST", `/repos/${FULL}/issues/${parent.number}/sub_issues`, {
      sub_issue_id: child.number,
    });
    expect(res.status).toBe(422);
  });

  it("one parent per issue: a second parent answers 422 unless replace_parent moves it", async () => {
    const s = await start();
    const gh = client(s);
    const [p1, p2, child] = await issues(s, 3);
    if (!p1 || !p2 || !child) throw new Error("setup");
    await gh.rest.issues.addSubIssue({ ...REPO, issue_number: p1.number, sub_issue_id: child.id });
    const second = await api(s, "POST", `/repos/${FULL}/issues/${p2.number}/sub_issues`, {
      sub_issue_id: child.id,
    });
    expect(second.status).toBe(422);
    expect(JSON.stringify(second.data)).toContain("only have one parent");
    const again = await api(s, "POST", `/repos/${FULL}/issues/${p1.number}/sub_issues`, {
      sub_issue_id: child.id,
    });
    expect(again.status).toBe(422);
    await gh.rest.issues.addSubIssue({
      ...REPO,
      issue_number: p2.number,
      sub_issue_id: child.id,
      replace_parent: true,
    });
    expect((await gh.rest.issues.listSubIssues({ ...REPO, issue_number: p1.number })).data).toEqual([]);
    expect((await gh.rest.issues.getParent({ ...REPO, issue_number: child.number })).data.number).toBe(
      p2.number,
    );
  });

  it("at most 100 sub-issues per parent: the 101st answers 422 and is not attached", async () => {
    const s = await start();
    const gh = client(s);
    const [parent, ...children] = await issues(s, 102);
    if (!parent) throw new Error("setup");
    for (const c of children.slice(0, 100))
      await gh.rest.issues.addSubIssue({ ...REPO, issue_number: parent.number, sub_issue_id: c.id });
    const over = children[100];
    if (!over) throw new Error("setup");
    const res = await api(s, "POST", `/repos/${FULL}/issues/${parent.number}/sub_issues`, {
      sub_issue_id: over.id,
    });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.data)).toContain("100");
    const got = await gh.rest.issues.get({ ...REPO, issue_number: parent.number });
    expect(got.data.sub_issues_summary?.total).toBe(100);
    const page2 = await gh.rest.issues.listSubIssues({
      ...REPO,
      issue_number: parent.number,
      per_page: 30,
      page: 4,
    });
    expect(page2.data).toHaveLength(10);
  });

  it("same owner: a child in another repository of the owner is accepted, of another owner refused", async () => {
    const s = await start();
    const gh = client(s);
    const [parent] = await issues(s, 1);
    const [sibling] = await issues(s, 1, { owner: "acme", repo: "other" });
    const [foreign] = await issues(s, 1, { owner: "someone", repo: "else" });
    if (!parent || !sibling || !foreign) throw new Error("setup");
    expect(
      await statusOf(
        gh.rest.issues.addSubIssue({ ...REPO, issue_number: parent.number, sub_issue_id: sibling.id }),
      ),
    ).toBe("resolved");
    expect(
      await statusOf(
        gh.rest.issues.addSubIssue({ ...REPO, issue_number: parent.number, sub_issue_id: foreign.id }),
      ),
    ).toBe(422);
  });

  it("no loops: an issue is not its own sub-issue, nor its parent's", async () => {
    const s = await start();
    const gh = client(s);
    const [a, b] = await issues(s, 2);
    if (!a || !b) throw new Error("setup");
    expect(
      await statusOf(gh.rest.issues.addSubIssue({ ...REPO, issue_number: a.number, sub_issue_id: a.id })),
    ).toBe(422);
    await gh.rest.issues.addSubIssue({ ...REPO, issue_number: a.number, sub_issue_id: b.id });
    expect(
      await statusOf(gh.rest.issues.addSubIssue({ ...REPO, issue_number: b.number, sub_issue_id: a.id })),
    ).toBe(422);
  });

  it("remove: the child leaves the parent and has no parent (404); removing it again answers 404", async () => {
    const s = await start();
    const gh = client(s);
    const [parent, child] = await issues(s, 2);
    if (!parent || !child) throw new Error("setup");
    await gh.rest.issues.addSubIssue({ ...REPO, issue_number: parent.number, sub_issue_id: child.id });
    const removed = await gh.rest.issues.removeSubIssue({
      ...REPO,
      issue_number: parent.number,
      sub_issue_id: child.id,
    });
    expect(removed.data.sub_issues_summary?.total).toBe(0);
    expect(await statusOf(gh.rest.issues.getParent({ ...REPO, issue_number: child.number }))).toBe(404);
    expect(
      await statusOf(
        gh.rest.issues.removeSubIssue({ ...REPO, issue_number: parent.number, sub_issue_id: child.id }),
      ),
    ).toBe(404);
  });

  it("a repository without sub-issues (GitHub Enterprise Server) answers every route 404 and shows no summary", async () => {
    const s = await start({ subIssues: { unavailableIn: [FULL] } });
    const gh = client(s);
    const [parent, child] = await issues(s, 2);
    if (!parent || !child) throw new Error("setup");
    const routes = [
      api(s, "POST", `/repos/${FULL}/issues/${parent.number}/sub_issues`, { sub_issue_id: child.id }),
      api(s, "GET", `/repos/${FULL}/issues/${parent.number}/sub_issues`),
      api(s, "DELETE", `/repos/${FULL}/issues/${parent.number}/sub_issue`, { sub_issue_id: child.id }),
      api(s, "GET", `/repos/${FULL}/issues/${child.number}/parent`),
    ];
    expect((await Promise.all(routes)).map((r) => r.status)).toEqual([404, 404, 404, 404]);
    const got = await gh.rest.issues.get({ ...REPO, issue_number: parent.number });
    expect(got.data.sub_issues_summary).toBeUndefined();
    // Other repositories keep the feature.
    const [p2, c2] = await issues(s, 2, { owner: "acme", repo: "other" });
    if (!p2 || !c2) throw new Error("setup");
    expect(
      await statusOf(
        gh.rest.issues.addSubIssue({
          owner: "acme",
          repo: "other",
          issue_number: p2.number,
          sub_issue_id: c2.id,
        }),
      ),
    ).toBe("resolved");
  });

  it("subIssues: false turns the feature off everywhere", async () => {
    const s = await start({ subIssues: false });
    const [parent, child] = await issues(s, 2);
    if (!parent || !child) throw new Error("setup");
    const res = await api(s, "POST", `/repos/${FULL}/issues/${parent.number}/sub_issues`, {
      sub_issue_id: child.id,
    });
    expect(res.status).toBe(404);
  });
});
