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

async function setUp(
  standInOpts: StandInOptions = {},
  budget = { perMinute: 0, perHour: 0, minIntervalMs: 0 },
  issueType?: string,
) {
  const time = fakeTime(Date.now());
  standIn = await startGitHubStandIn(standInOpts);
  const gh = createGitHub({
    apiUrl: standIn.url,
    auth: { token: "ghp_standin" },
    writeBudget: budget,
    retryAfterBaseValue: 1,
    clock: time.clock,
    sleep: time.sleep,
    ...(issueType === undefined ? {} : { issueType }),
  });
  const issue = async (title: string, repo = REPO) =>
    gh.createIssue(repo, { title, body: "b", labels: [], assignees: [] });
  return { gh, time, standIn, issue };
}

describe("GitHub gateway: sub-issues (against the stand-in)", () => {
  it("the issue snapshot carries GitHub's issue id, and an attach by that id shows in the list and the parent", async () => {
    const { gh, issue } = await setUp();
    const parent = await issue("parent");
    const child = await issue("child");
    expect(child.id).toEqual(expect.any(Number));
    expect(await gh.addSubIssue(REPO, parent.number, child.id ?? 0)).toEqual({
      available: true,
      outcome: "attached",
    });
    const list = await gh.listSubIssues(REPO, parent.number);
    expect(list).toMatchObject({ available: true, issues: [{ number: child.number }] });
    expect(await gh.getParent(REPO, child.number)).toMatchObject({ number: parent.number });
    expect(await gh.getParent(REPO, parent.number)).toBeNull();
  });

  it("GitHub's 422 rules are outcomes, not throws: repeated attach, a second parent, a full parent", async () => {
    const { gh, issue } = await setUp();
    const p1 = await issue("p1");
    const p2 = await issue("p2");
    const child = await issue("child");
    const id = child.id ?? 0;
    await gh.addSubIssue(REPO, p1.number, id);
    expect(await gh.addSubIssue(REPO, p1.number, id)).toMatchObject({
      available: true,
      outcome: "already_attached",
    });
    expect(await gh.addSubIssue(REPO, p2.number, id)).toMatchObject({
      available: true,
      outcome: "has_other_parent",
    });
    expect(await gh.addSubIssue(REPO, p2.number, id, { replaceParent: true })).toMatchObject({
      outcome: "attached",
    });
    for (let i = 0; i < 99; i++) {
      const c = await issue(`c${i}`);
      await gh.addSubIssue(REPO, p2.number, c.id ?? 0);
    }
    const over = await issue("over");
    expect(await gh.addSubIssue(REPO, p2.number, over.id ?? 0)).toMatchObject({
      available: true,
      outcome: "parent_full",
    });
    expect(await gh.listSubIssues(REPO, p2.number)).toMatchObject({
      available: true,
      issues: expect.any(Array),
    });
    const list = await gh.listSubIssues(REPO, p2.number);
    expect(list.available && list.issues.length).toBe(100);
  });

  it("a repository without sub-issues answers { available: false } on every call, with GitHub's status", async () => {
    const { gh, issue } = await setUp({ subIssues: { unavailableIn: [REPO] } });
    const parent = await issue("parent");
    const child = await issue("child");
    expect(await gh.addSubIssue(REPO, parent.number, child.id ?? 0)).toMatchObject({
      available: false,
      status: 404,
    });
    expect(await gh.removeSubIssue(REPO, parent.number, child.id ?? 0)).toMatchObject({
      available: false,
      status: 404,
    });
    expect(await gh.listSubIssues(REPO, parent.number)).toMatchObject({ available: false, status: 404 });
  });

  it("other failures still throw: a 5xx on attach is not taken for a missing feature", async () => {
    const { gh, issue, standIn: s } = await setUp();
    const parent = await issue("parent");
    const child = await issue("child");
    s.faults.failNext("POST", "/repos/{owner}/{repo}/issues/{issue_number}/sub_issues", 502);
    await expect(gh.addSubIssue(REPO, parent.number, child.id ?? 0)).rejects.toMatchObject({ status: 502 });
  });

  it("detach: the child leaves the parent", async () => {
    const { gh, issue } = await setUp();
    const parent = await issue("parent");
    const child = await issue("child");
    await gh.addSubIssue(REPO, parent.number, child.id ?? 0);
    expect(await gh.removeSubIssue(REPO, parent.number, child.id ?? 0)).toEqual({
      available: true,
      removed: true,
    });
    expect(await gh.listSubIssues(REPO, parent.number)).toEqual({ available: true, issues: [] });
  });

  it("attach and detach are writes paced by the write budget (one per minute here)", async () => {
    const { gh, issue, time } = await setUp({}, { perMinute: 1, perHour: 0, minIntervalMs: 0 });
    const parent = await issue("parent");
    const child = await issue("child");
    const before = time.clock.now();
    await gh.addSubIssue(REPO, parent.number, child.id ?? 0);
    await gh.removeSubIssue(REPO, parent.number, child.id ?? 0);
    // Four writes at one a minute: the budget made the last three wait about a minute each.
    expect(time.clock.now() - before).toBeGreaterThanOrEqual(2 * 55_000);
    expect(gh.stats().writes).toBe(4);
  });
});

describe("GitHub gateway: a repository's group issues (against the stand-in)", () => {
  it("lists every issue labelled as a group's, open and closed, over several pages, and no other", async () => {
    const { gh } = await setUp();
    const made: number[] = [];
    for (let n = 1; n <= 160; n += 1) {
      const labels = n % 3 === 0 ? ["threatbridge"] : ["threatbridge", "threatbridge:group"];
      const issue = await gh.createIssue(REPO, { title: `g${n}`, body: `b${n}`, labels, assignees: [] });
      if (n % 3 !== 0) made.push(issue.number);
    }
    const closed = made[0];
    if (closed === undefined) throw new Error("none made");
    await gh.updateIssue(REPO, closed, { state: "closed", stateReason: "completed" });
    const listed = await gh.listGroupIssues(REPO);
    expect(made.length).toBeGreaterThan(100);
    expect(listed.map((i) => i.number).sort((a, b) => a - b)).toEqual(made);
    expect(listed.find((i) => i.number === closed)?.state).toBe("closed");
  });
});

describe("GitHub gateway: milestones (against the stand-in)", () => {
  it("a due date is sent at 12:00 UTC, so GitHub (US Pacific dates) shows that very day", async () => {
    const { gh, standIn: s } = await setUp();
    const created = await gh.createMilestone(REPO, { title: "SLA 2026-01-11", dueOn: "2026-01-11" });
    expect(created).toMatchObject({
      available: true,
      existed: false,
      milestone: { number: 1, dueOn: "2026-01-11" },
    });
    const raw = await fetch(`${s.url}/repos/${REPO}/milestones/1`, {
      headers: { authorization: "token ghp_standin" },
    });
    expect(await raw.json()).toMatchObject({ due_on: "2026-01-11T08:00:00Z" });
  });

  it("creating a title GitHub already has answers that milestone (existed), so creating on demand can repeat", async () => {
    const { gh } = await setUp();
    await gh.createMilestone(REPO, { title: "SLA 2026-01-11", dueOn: "2026-01-11" });
    const again = await gh.createMilestone(REPO, { title: "SLA 2026-01-11", dueOn: "2026-01-11" });
    expect(again).toMatchObject({ available: true, existed: true, milestone: { number: 1 } });
    expect(await gh.listMilestones(REPO)).toMatchObject({
      available: true,
      milestones: [{ title: "SLA 2026-01-11" }],
    });
  });

  it("an issue goes into a milestone on create and leaves it on update; the milestone is updated", async () => {
    const { gh, standIn: s } = await setUp();
    const m = await gh.createMilestone(REPO, { title: "m" });
    if (!m.available) throw new Error("milestones available");
    await gh.createIssue(REPO, {
      title: "t",
      body: "b",
      labels: [],
      assignees: [],
      milestone: m.milestone.number,
    });
    expect(s.issues(REPO)[0]?.milestone).toBe(m.milestone.number);
    await gh.updateIssue(REPO, 1, { milestone: null });
    expect(s.issues(REPO)[0]?.milestone).toBeNull();
    const updated = await gh.updateMilestone(REPO, m.milestone.number, {
      dueOn: "2026-07-05",
      state: "closed",
    });
    expect(updated).toMatchObject({ available: true, milestone: { dueOn: "2026-07-05", state: "closed" } });
  });

  it("milestoneNumber: a repository's milestones are listed once per process; a missing title is made once", async () => {
    const { gh, standIn: s } = await setUp();
    const list = () => s.counters().byRoute["GET /repos/{owner}/{repo}/milestones"] ?? 0;
    const create = () => s.counters().byRoute["POST /repos/{owner}/{repo}/milestones"] ?? 0;
    expect(await gh.hasMilestone(REPO, "SLA 2026-01-11")).toBe(false);
    expect(await gh.milestoneNumber(REPO, "SLA 2026-01-11", "2026-01-11")).toEqual({
      number: 1,
      created: true,
    });
    expect(await gh.milestoneNumber(REPO, "SLA 2026-01-11", "2026-01-11")).toEqual({
      number: 1,
      created: false,
    });
    expect(await gh.hasMilestone(REPO, "SLA 2026-01-11")).toBe(true);
    expect([list(), create()]).toEqual([1, 1]);
  });

  it("a date that is not YYYY-MM-DD is refused before anything is sent", async () => {
    const { gh, standIn: s } = await setUp();
    await expect(gh.createMilestone(REPO, { title: "m", dueOn: "11/01/2026" })).rejects.toMatchObject({
      code: "validation",
    });
    expect(s.counters().writes).toBe(0);
  });
});
