import { describe, expect, it } from "vitest";
import { Harness, makeConfig, REPO, threatId } from "../harness.js";
import { FakeWorkflowGitHub } from "../fake-workflow.js";
import { GitHubError } from "../../../src/github/index.js";

/**
 * Single mode through the engine over in-memory fakes (contract, "Groups": "In `single` mode a
 * group is one issue and its threats get none of their own").
 */

function harness(): Harness {
  return new Harness(makeConfig({ grouping: { by: "asset", mode: "single" } }), new FakeWorkflowGitHub());
}

function gh(h: Harness): FakeWorkflowGitHub {
  if (!(h.github instanceof FakeWorkflowGitHub)) throw new Error("no workflow fake");
  return h.github;
}

const linkOf = (h: Harness, n: number) =>
  h.platform.threats.get(threatId(n))?.external_references.find((r) => r.system === "github")?.external_id;
const statusOf = (h: Harness, n: number) => h.platform.threats.get(threatId(n))?.status;

async function threeMembers(): Promise<Harness> {
  const h = harness();
  for (const n of [1, 2, 3]) h.platform.put({ id: threatId(n), name: `Member ${n}`, severity: "low" });
  await h.settle();
  await h.settle();
  return h;
}

describe("groups in single mode, through the engine", () => {
  it("a group is one issue: its checklist names each member, the members get none of their own, and every member's link names it", async () => {
    const h = await threeMembers();
    const issues = h.issues(REPO);
    expect(issues).toHaveLength(1);
    expect(issues.filter((i) => i.threatId !== null)).toHaveLength(0);
    const issue = gh(h).parents(REPO)[0];
    expect(issue?.body).toContain("**low**");
    for (const n of [1, 2, 3]) {
      expect(issue?.body).toContain(`Member ${n}`);
      expect(linkOf(h, n)).toBe(`${REPO}#${issue?.number}`);
    }
  });

  it("closes when no member is open on the platform, reopens when one is", async () => {
    const h = await threeMembers();
    for (const n of [1, 2, 3]) h.platform.put({ id: threatId(n), status: "solved" });
    await h.settle();
    expect(gh(h).parents(REPO)[0]?.state).toBe("closed");
    h.platform.put({ id: threatId(2), status: "unsolved" });
    await h.settle();
    expect(gh(h).parents(REPO)[0]?.state).toBe("open");
    expect(gh(h).parents(REPO)[0]?.body).toMatch(/- \[x\] .*Member 1/);
  });

  it("a person's close sends its verdict to every open member (one PATCH each); their reopen sends unsolved to those it closed", async () => {
    const h = await threeMembers();
    h.platform.put({ id: threatId(3), status: "solved" });
    await h.settle();
    const issue = gh(h).parents(REPO)[0];
    if (!issue) throw new Error("no group issue");
    h.github.personSets(REPO, issue.number, "closed", "alice", "not_planned");
    await h.settle();
    // The default verdict of a "not planned" close is `solved` (contract, "GitHub → platform").
    expect([1, 2].map((n) => statusOf(h, n))).toEqual(["solved", "solved"]);
    expect(statusOf(h, 3)).toBe("solved");
    expect(gh(h).parents(REPO)[0]?.state).toBe("closed");
    const verdicts = h.events.filter((e) => e.type === "verdict_sent");
    expect(verdicts.map((e) => e.threatId).sort()).toEqual([threatId(1), threatId(2)]);
    h.github.personSets(REPO, issue.number, "open", "alice");
    await h.settle();
    expect([1, 2, 3].map((n) => statusOf(h, n))).toEqual(["unsolved", "unsolved", "solved"]);
    expect(gh(h).parents(REPO)[0]?.state).toBe("open");
  });

  it("switching single on leaves threats that already have an issue as they are; a new threat joins the group's issue", async () => {
    const h = new Harness(makeConfig(), new FakeWorkflowGitHub());
    for (const n of [1, 2]) h.platform.put({ id: threatId(n) });
    await h.settle();
    const before = h.issues(REPO).map((i) => `${i.number}:${i.state}:${i.body}`);
    expect(before).toHaveLength(2);
    // The operator switches single mode on: the process starts again with the new config.
    Object.defineProperty(h, "config", { value: makeConfig({ grouping: { by: "asset", mode: "single" } }) });
    h.restart();
    await h.settle();
    expect(gh(h).parents(REPO)).toHaveLength(0);
    expect(h.issues(REPO).map((i) => `${i.number}:${i.state}:${i.body}`)).toEqual(before);
    h.platform.put({ id: threatId(3), name: "Newcomer" });
    await h.settle();
    await h.settle();
    expect(h.issues(REPO)).toHaveLength(3);
    expect(gh(h).parents(REPO)[0]?.body).toContain("Newcomer");
    expect(gh(h).parents(REPO)[0]?.body).not.toContain("Threat 00000000");
  });

  it("switching grouping off: members get issues of their own and their links move there; the group's issue is never adopted, and is retired (contract, Changing grouping)", async () => {
    const h = await threeMembers();
    const groupIssue = gh(h).parents(REPO)[0];
    Object.defineProperty(h, "config", { value: makeConfig() });
    h.restart();
    await h.settle();
    await h.settle();
    const own = h.issues(REPO).filter((i) => i.threatId !== null);
    expect(own).toHaveLength(3);
    for (const n of [1, 2, 3]) {
      const issue = own.find((i) => i.threatId === threatId(n));
      expect(linkOf(h, n)).toBe(`${REPO}#${issue?.number}`);
    }
    const retired = h.issues(REPO).find((i) => i.number === groupIssue?.number);
    expect(retired?.threatId).toBeNull();
    expect(retired?.state).toBe("closed");
    expect(retired?.stateReason).toBe("not_planned");
    expect(retired?.body).toContain("<!-- threatbridge:retired-group=");
    expect(retired?.body).not.toContain("<!-- threatbridge:group=");
  });

  it("a lost state file: the group's issue is found again by its label and marker and taken over, never a second one; every link still names it", async () => {
    const h = await threeMembers();
    const issue = gh(h).parents(REPO)[0];
    if (!issue) throw new Error("no group issue");
    // The state is gone; the process starts from nothing (contract: one issue per group, ever).
    h.disk = null;
    h.restart();
    await h.settle();
    await h.settle();
    expect(gh(h).parents(REPO)).toHaveLength(1);
    expect(h.issues(REPO)).toHaveLength(1);
    for (const n of [1, 2, 3]) expect(linkOf(h, n)).toBe(`${REPO}#${issue.number}`);
    const group = Object.values(h.ctx.state.groups ?? {})[0];
    expect(group?.single?.[REPO]?.number).toBe(issue.number);
  });

  it("a group issue a person deleted is left deleted: GitHub's 404 is taken once, no second issue, no retry every cycle", async () => {
    const h = await threeMembers();
    const fake = gh(h);
    const deleted = fake.parents(REPO)[0];
    if (!deleted) throw new Error("no group issue");
    // Deleted: GitHub answers 404 for it and lists it no more (the fake keeps its number taken).
    deleted.labels = [];
    deleted.body = "";
    const update = fake.updateIssue.bind(fake);
    let refusals = 0;
    fake.updateIssue = (repo, number, patch) => {
      if (number !== deleted.number) return update(repo, number, patch);
      refusals += 1;
      return Promise.reject(new GitHubError("http", "Not Found", { status: 404 }));
    };
    h.platform.put({ id: threatId(4), name: "Joiner", severity: "low" });
    await h.settle();
    await h.settle();
    expect(fake.parents(REPO)).toHaveLength(0);
    expect(refusals).toBe(1);
    expect(Object.values(h.ctx.state.groups ?? {})[0]?.single?.[REPO]?.refused).toBeDefined();
  });

  it("a crash at every call of either side, before or after it lands: one group issue, ever, and every link names it", async () => {
    const clean = await threeMembers();
    const points = { github: clean.github.calls, platform: clean.platform.calls };
    for (const [side, call] of (["github", "platform"] as const).flatMap((side) =>
      Array.from({ length: points[side] }, (_, i) => [side, i + 1] as const),
    )) {
      for (const after of [false, true]) {
        const h = harness();
        for (const n of [1, 2, 3]) h.platform.put({ id: threatId(n) });
        h.crashAt(side, call, after);
        await h.cycle().catch(() => undefined);
        h.restart();
        await h.settle();
        await h.settle();
        expect(gh(h).parents(REPO)).toHaveLength(1);
        expect(h.issues(REPO)).toHaveLength(1);
        for (const n of [1, 2, 3]) expect(linkOf(h, n)).toBe(`${REPO}#1`);
      }
    }
  });
});
