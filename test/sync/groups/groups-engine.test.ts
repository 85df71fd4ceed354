import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Harness, makeConfig, REPO, threatId } from "../harness.js";
import { FakeWorkflowGitHub } from "../fake-workflow.js";
import { GitHubError } from "../../../src/github/index.js";
import { persist } from "../../../src/sync/context.js";
import { putThreat } from "../../../src/sync/records/state-updates.js";
import { slaOf } from "../feature-fields.js";

/**
 * Parent mode through the engine over in-memory fakes (contract, "Groups"): one parent per group,
 * ever, members attached by issue id, the parent following its members, a person's change of the
 * parent not undone, the checklist as the fallback.
 */

const ASSET_ID = "00000000-0000-4000-8000-00000000a001";
const OTHER_ASSET = "00000000-0000-4000-8000-00000000a002";

function harness(subIssues = true, grouping: Record<string, unknown> = { by: "asset" }): Harness {
  return new Harness(makeConfig({ grouping }), new FakeWorkflowGitHub(subIssues));
}

function gh(h: Harness): FakeWorkflowGitHub {
  if (!(h.github instanceof FakeWorkflowGitHub)) throw new Error("the harness has no sub-issues");
  return h.github;
}

function memberIssues(h: Harness) {
  return h.issues(REPO).filter((i) => i.threatId !== null);
}

describe("groups in parent mode, through the engine", () => {
  it("a group with two open members gets one parent, labelled and marked, with both attached by issue id", async () => {
    const h = harness();
    h.platform.put({ id: threatId(1), name: "First" });
    h.platform.put({ id: threatId(2), name: "Second" });
    h.platform.put({ id: threatId(3), name: "Alone", asset_id: OTHER_ASSET });
    await h.settle();
    await h.cycle();
    const parents = gh(h).parents(REPO);
    expect(parents).toHaveLength(1);
    const parent = parents[0];
    expect(parent?.labels).toEqual(["threatbridge", "threatbridge:group"]);
    expect(parent?.title).toBe("00000000-0000-4000-8000-00000000a001: 2 open of 2");
    const ids = memberIssues(h)
      .filter((i) => i.threatId !== threatId(3))
      .map((i) => i.id);
    expect(gh(h).subIssues.get(`${REPO}#${parent?.number}`)?.sort()).toEqual(ids.sort());
    // Every threat keeps its own issue.
    expect(memberIssues(h)).toHaveLength(3);
    expect(h.events.filter((e) => e.type === "group_written")).toHaveLength(1);
    expect(h.events.filter((e) => e.type === "attached")).toHaveLength(2);
  });

  it("with SLAs on, the parent shows its members' earliest due date", async () => {
    const h = new Harness(
      makeConfig({ grouping: { by: "asset" }, sla: { high: "7d", low: "90d" } }),
      new FakeWorkflowGitHub(),
    );
    h.platform.put({ id: threatId(1), severity: "high" });
    h.platform.put({ id: threatId(2), severity: "low" });
    await h.settle();
    await h.cycle();
    const dues = [threatId(1), threatId(2)].map((id) => slaOf(h.ctx.state.threats.get(id))?.due ?? "");
    const earliest = dues.sort()[0]?.slice(0, 10);
    expect(earliest).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(gh(h).parents(REPO)[0]?.body).toContain(`Earliest due date: ${earliest}`);
  });

  it("a threat joining later is attached, and the checklist follows in one update", async () => {
    const h = harness();
    h.platform.put({ id: threatId(1) });
    h.platform.put({ id: threatId(2) });
    await h.settle();
    await h.cycle();
    const writesBefore = h.events.filter((e) => e.type === "group_written").length;
    for (const n of [3, 4, 5]) h.platform.put({ id: threatId(n), name: `Joiner ${n}` });
    await h.settle();
    const parent = gh(h).parents(REPO)[0];
    expect(gh(h).parents(REPO)).toHaveLength(1);
    expect(parent?.body).toContain("Joiner 5");
    expect(parent?.body).toContain("Members: 5 open of 5");
    const updates = h.events.filter((e) => e.type === "group_written" && e.detail === "update");
    expect(h.events.filter((e) => e.type === "group_written").length - writesBefore).toBe(updates.length);
    expect(updates.length).toBeLessThanOrEqual(1);
    expect(gh(h).subIssues.get(`${REPO}#${parent?.number}`)).toHaveLength(5);
  });

  it("the parent closes (completed) when every member is closed and reopens when one reopens; no verdict for it", async () => {
    const h = harness();
    h.platform.put({ id: threatId(1) });
    h.platform.put({ id: threatId(2) });
    await h.settle();
    await h.cycle();
    for (const issue of memberIssues(h)) h.github.personSets(REPO, issue.number, "closed", "alice");
    await h.settle();
    const parent = () => gh(h).parents(REPO)[0];
    expect(parent()?.state).toBe("closed");
    expect(parent()?.stateReason).toBe("completed");
    const first = memberIssues(h)[0];
    if (!first) throw new Error("no member");
    h.github.personSets(REPO, first.number, "open", "alice");
    await h.settle();
    expect(parent()?.state).toBe("open");
    // Verdicts go to the members only (two closes, one reopen).
    expect(h.events.filter((e) => e.type === "verdict_sent")).toHaveLength(3);
  });

  it("a person's close of the parent is not undone while its members stay as they are", async () => {
    const h = harness();
    h.platform.put({ id: threatId(1) });
    h.platform.put({ id: threatId(2) });
    await h.settle();
    await h.cycle();
    const parent = gh(h).parents(REPO)[0];
    if (!parent) throw new Error("no parent");
    h.github.personSets(REPO, parent.number, "closed", "bob");
    const verdicts = h.events.filter((e) => e.type === "verdict_sent").length;
    await h.settle();
    await h.cycle();
    expect(gh(h).parents(REPO)[0]?.state).toBe("closed");
    expect(h.events.filter((e) => e.type === "verdict_sent")).toHaveLength(verdicts);
  });

  it("switching parent mode on attaches existing issues; one whose id was never stored is read once for it", async () => {
    const h = new Harness(makeConfig(), new FakeWorkflowGitHub());
    for (const n of [1, 2, 3]) h.platform.put({ id: threatId(n) });
    await h.settle();
    // Issues recorded before ids were kept: the state knows their numbers only.
    for (const [id, record] of h.ctx.state.threats.entries()) {
      if (!record.issue) continue;
      const { id: _id, ...issue } = record.issue;
      putThreat(h.ctx, id, { ...record, issue });
    }
    await persist(h.ctx);
    Object.defineProperty(h, "config", { value: makeConfig({ grouping: { by: "asset" } }) });
    h.restart();
    const reads = h.github.calls;
    await h.settle();
    const parent = gh(h).parents(REPO)[0];
    expect(gh(h).parents(REPO)).toHaveLength(1);
    expect(gh(h).subIssues.get(`${REPO}#${parent?.number}`)).toHaveLength(3);
    expect(h.github.calls - reads).toBeGreaterThanOrEqual(3);
    // Now stored: the next cycle reads none of them again.
    expect([...h.ctx.state.threats.entries()].every(([, r]) => r.issue?.id !== undefined)).toBe(true);
  });

  it("where sub-issues are unavailable, the checklist alone, said once in the log", async () => {
    const h = harness(false);
    h.platform.put({ id: threatId(1) });
    h.platform.put({ id: threatId(2) });
    await h.settle();
    await h.cycle();
    await h.cycle();
    expect(gh(h).parents(REPO)).toHaveLength(1);
    expect(gh(h).parents(REPO)[0]?.body).toContain(`- [ ] ${REPO}#1`);
    expect(h.events.filter((e) => e.type === "attached")).toHaveLength(0);
    const group = Object.values(h.ctx.state.groups ?? {})[0];
    expect(Object.values(group?.parents ?? {})[0]?.checklistOnly).toBe("unavailable");
    // One attach tried (refused as unavailable), then none: no loop.
    const attempts = gh(h).calls;
    await h.cycle();
    expect(gh(h).calls - attempts).toBeLessThanOrEqual(1);
  });

  it("a lost state file: the group's parent is found again by its label and marker (one list) and taken over, never a second one", async () => {
    const h = harness();
    h.platform.put({ id: threatId(1) });
    h.platform.put({ id: threatId(2) });
    await h.settle();
    await h.cycle();
    const parent = gh(h).parents(REPO)[0];
    if (!parent) throw new Error("no parent");
    // The state is gone; the process starts from nothing (contract: "at most one parent per group, ever").
    h.disk = null;
    h.restart();
    const fake = gh(h);
    const list = fake.listGroupIssues.bind(fake);
    let lists = 0;
    fake.listGroupIssues = (repo: string) => {
      lists += 1;
      return list(repo);
    };
    await h.settle();
    await h.cycle();
    expect(gh(h).parents(REPO)).toHaveLength(1);
    expect(h.ctx.state.groups?.[`group:asset:${ASSET_ID}`]?.parents[REPO]?.number).toBe(parent.number);
    expect(lists).toBe(1);
    // Its members are attached to it still, and recorded so (GitHub answered "already attached").
    expect(gh(h).subIssues.get(`${REPO}#${parent.number}`)).toHaveLength(2);
    expect(h.ctx.state.groups?.[`group:asset:${ASSET_ID}`]?.parents[REPO]?.attached).toHaveLength(2);
    // A content still current (its revision line) is not rewritten.
    expect(h.events.filter((e) => e.type === "group_written")).toHaveLength(1);
  });

  it("a parent a person deleted is left deleted: the group gets no second parent while the state remembers it", async () => {
    const h = harness();
    h.platform.put({ id: threatId(1) });
    h.platform.put({ id: threatId(2) });
    await h.settle();
    await h.cycle();
    const fake = gh(h);
    const deleted = fake.parents(REPO)[0];
    if (!deleted) throw new Error("no parent");
    // Deleted: GitHub answers 404 for it and lists it no more (the fake keeps its number taken).
    deleted.labels = [];
    deleted.body = "";
    const update = fake.updateIssue.bind(fake);
    fake.updateIssue = (repo, number, patch) =>
      number === deleted.number
        ? Promise.reject(new GitHubError("http", "Not Found", { status: 404 }))
        : update(repo, number, patch);
    h.platform.put({ id: threatId(3), name: "Joiner" });
    await h.settle();
    await h.cycle();
    expect(gh(h).parents(REPO)).toHaveLength(0);
    expect(h.ctx.state.groups?.[`group:asset:${ASSET_ID}`]?.parents[REPO]?.refused).toBeDefined();
  });

  it("a crash at every call of either side, before or after it lands: never a second parent, and the group ends with exactly one", async () => {
    const MEMBERS = 3;
    const start = (): Harness => {
      const h = harness();
      for (let i = 1; i <= MEMBERS; i += 1) h.platform.put({ id: threatId(i) });
      return h;
    };
    // A clean run says how many calls there are to crash at (the parent's create among them).
    const clean = start();
    await clean.settle();
    await clean.cycle();
    const points = { github: clean.github.calls, platform: clean.platform.calls };
    let crashes = 0;
    for (const side of ["github", "platform"] as const) {
      for (let call = 1; call <= points[side]; call += 1) {
        for (const after of [false, true]) {
          const h = start();
          h.crashAt(side, call, after);
          await h.cycle().catch(() => undefined);
          if (h.dead) crashes += 1;
          expect(gh(h).parents(REPO).length).toBeLessThanOrEqual(1);
          h.restart();
          await h.settle();
          await h.cycle();
          expect(gh(h).parents(REPO)).toHaveLength(1);
          const parent = gh(h).parents(REPO)[0];
          expect(gh(h).subIssues.get(`${REPO}#${parent?.number}`)).toHaveLength(MEMBERS);
        }
      }
    }
    expect(crashes).toBeGreaterThan(points.github);
  });

  it("random crash points over groups of any size keep one parent per group", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 5 }),
        fc.constantFrom("platform" as const, "github" as const),
        fc.integer({ min: 1, max: 30 }),
        fc.boolean(),
        async (members, side, call, after) => {
          const h = harness();
          for (let i = 1; i <= members; i += 1) h.platform.put({ id: threatId(i) });
          h.crashAt(side, call, after);
          await h.cycle().catch(() => undefined);
          h.restart();
          await h.settle();
          await h.cycle();
          expect(gh(h).parents(REPO)).toHaveLength(1);
        },
      ),
      { numRuns: 60 },
    );
  });
});
