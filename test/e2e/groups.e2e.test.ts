import { afterEach, describe, expect, it } from "vitest";
import type { StandInIssue, StandInOptions } from "../../src/github-stand-in/index.js";
import { GH_TOKEN, REPO, startWorld, type World } from "./world.js";

/**
 * Contract, "Workflow" → "Groups", parent mode, through the built CLI against the simulator and
 * the GitHub stand-in (whose sub-issues follow GitHub's rules): one parent per group with
 * `min_members` open members, labelled and marked, members attached by issue id, the parent
 * following its members, a person's close of a parent not undone, the plan shown by a dry run,
 * and the checklist alone where sub-issues are unavailable.
 */

const GROUPING = "grouping:\n  by: asset\n";
const MARKER = /<!-- threatbridge:threat=([0-9a-f-]+) -->/;

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function start(yaml: string, standIn: Partial<StandInOptions> = {}): Promise<World> {
  return startWorld({}, yaml, { standIn: { tokens: [GH_TOKEN], ...standIn } });
}

function parents(w: World): StandInIssue[] {
  return w.gh.issues(REPO).filter((i) => i.labels.includes("threatbridge:group"));
}

/** The threats' issues by the asset of their threat: the groups of `by: asset`. */
function membersByAsset(w: World): Map<string, StandInIssue[]> {
  const groups = new Map<string, StandInIssue[]>();
  for (const issue of w.gh.issues(REPO)) {
    const id = MARKER.exec(issue.body ?? "")?.[1];
    if (id === undefined) continue;
    const asset = w.sim.sim.getThreat(id)?.["asset_id"];
    if (typeof asset !== "string") continue;
    groups.set(asset, [...(groups.get(asset) ?? []), issue]);
  }
  return groups;
}

function parentOf(w: World, asset: string): StandInIssue | undefined {
  return parents(w).find((p) => p.body?.includes(`<!-- threatbridge:group=asset:${asset} -->`));
}

/** Groups due a parent (two open members or more, the default min_members). */
function dueGroups(w: World): Array<[string, StandInIssue[]]> {
  return [...membersByAsset(w)].filter(([, issues]) => issues.filter((i) => i.state === "open").length >= 2);
}

describe("groups, parent mode (end to end)", () => {
  it("sync: each group with two open members gets one parent, its members attached as sub-issues by id; a second sync writes nothing", async () => {
    world = await start(GROUPING);
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    const due = dueGroups(world);
    expect(due.length).toBeGreaterThan(0);
    expect(parents(world)).toHaveLength(due.length);
    for (const [asset, members] of due) {
      const parent = parentOf(world, asset);
      expect(parent?.labels.sort()).toEqual(["threatbridge", "threatbridge:group"]);
      expect(parent?.body).toContain(
        `Members: ${members.filter((m) => m.state === "open").length} open of ${members.length}`,
      );
      for (const m of members) expect(parent?.body).toContain(`${REPO}#${m.number} `);
      const children = world.gh.issues(REPO).filter((i) => i.parentId === parent?.id);
      expect(children.map((c) => c.number).sort()).toEqual(members.map((m) => m.number).sort());
    }
    const writes = world.gh.counters().writes;
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    expect(world.gh.counters().writes).toBe(writes);
    expect(parents(world)).toHaveLength(due.length);
  });

  it("the parent closes when every member is closed and reopens with one; a person's close of a parent is not undone", async () => {
    world = await start(GROUPING);
    await world.run(["sync", "-c", world.configPath]);
    const [first, second] = dueGroups(world);
    if (!first) throw new Error("the seed gives no group");
    for (const m of first[1]) world.gh.person.close(REPO, m.number, { reason: "completed", login: "alice" });
    await world.run(["sync", "-c", world.configPath]);
    const closed = parentOf(world, first[0]);
    expect(closed?.state).toBe("closed");
    expect(closed?.stateReason).toBe("completed");
    const back = first[1][0];
    if (!back) throw new Error("no member");
    world.gh.person.reopen(REPO, back.number, "alice");
    await world.run(["sync", "-c", world.configPath]);
    expect(parentOf(world, first[0])?.state).toBe("open");
    if (second) {
      const parent = parentOf(world, second[0]);
      if (!parent) throw new Error("no parent");
      world.gh.person.close(REPO, parent.number, { reason: "not_planned", login: "bob" });
      await world.run(["sync", "-c", world.configPath]);
      await world.run(["sync", "-c", world.configPath]);
      expect(parentOf(world, second[0])?.state).toBe("closed");
      // No verdict for a parent: its members keep their own status on the platform.
      for (const m of second[1]) {
        const id = MARKER.exec(m.body ?? "")?.[1] ?? "";
        expect(world.sim.sim.getThreat(id)?.["status"]).not.toBe("false_positive");
      }
    }
  });

  it("switching grouping on for existing issues: the dry run lists the parents and attachments with totals, then sync makes them", async () => {
    world = await start("");
    await world.run(["sync", "-c", world.configPath]);
    expect(parents(world)).toHaveLength(0);
    await world.writeConfig(GROUPING);
    const plan = await world.run(["sync", "--dry-run", "-c", world.configPath]);
    expect(plan.code).toBe(0);
    const due = dueGroups(world);
    const memberCount = due.reduce((n, [, m]) => n + m.length, 0);
    expect(plan.stdout).toMatch(new RegExp(`totals: .*group ${due.length}, attach ${memberCount}`));
    expect(plan.stdout).toContain("create parent");
    expect(parents(world)).toHaveLength(0);
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    expect(parents(world)).toHaveLength(due.length);
    const attached = world.gh.issues(REPO).filter((i) => i.parentId !== null);
    expect(attached).toHaveLength(memberCount);
  });

  it("a GitHub without sub-issues: parents carry the checklist alone, said once in the log, and no loop", async () => {
    world = await start(GROUPING, { subIssues: false });
    const result = await world.cli(["sync", "-c", world.configPath]);
    expect(result.code).toBe(0);
    expect(parents(world).length).toBeGreaterThan(0);
    expect(world.gh.issues(REPO).every((i) => i.parentId === null)).toBe(true);
    expect(result.stderr.split("\n").filter((l) => l.includes("has no sub-issues"))).toHaveLength(1);
    const attaches = () =>
      world?.gh.counters().byRoute["POST /repos/{owner}/{repo}/issues/{issue_number}/sub_issues"] ?? 0;
    const before = attaches();
    // Tried once for the repository (GitHub answered 404), then never again.
    expect(before).toBe(1);
    await world.run(["sync", "-c", world.configPath]);
    expect(attaches()).toBe(before);
  });

  it("every parent write and attach is one audit line (action group, attach), from the built CLI", async () => {
    world = await startWorld({}, GROUPING, {
      standIn: { tokens: [GH_TOKEN] },
      env: { THREATBRIDGE_LOG_LEVEL: "info" },
    });
    const result = await world.cli(["sync", "-c", world.configPath]);
    expect(result.code).toBe(0);
    const audit = result.stderr
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l["audit"] === true);
    const groupLines = audit.filter((l) => l["action"] === "group");
    expect(groupLines).toHaveLength(parents(world).length);
    for (const p of parents(world))
      expect(groupLines).toContainEqual(expect.objectContaining({ issue: `${REPO}#${p.number}` }));
    const attached = world.gh.issues(REPO).filter((i) => i.parentId !== null);
    expect(audit.filter((l) => l["action"] === "attach")).toHaveLength(attached.length);
  });

  it("check: says whether each repository has sub-issues (a warning where not), exit 0", async () => {
    world = await start(GROUPING);
    await world.run(["sync", "-c", world.configPath]);
    const ok = await world.cli(["check", "-c", world.configPath]);
    expect(ok.code).toBe(0);
    expect(ok.stdout.split("\n").find((l) => l.includes(`sub-issues in ${REPO}`))).toMatch(
      /^ok {2}.*available/,
    );
    await world.close();
    world = await start(GROUPING, { subIssues: false });
    await world.run(["sync", "-c", world.configPath]);
    const warned = await world.cli(["check", "-c", world.configPath]);
    expect(warned.code).toBe(0);
    expect(warned.stdout.split("\n").find((l) => l.includes(`sub-issues in ${REPO}`))).toMatch(
      /^WARN .*unavailable.*checklist only/,
    );
  });
});

describe("groups after a lost state file (end to end)", () => {
  it("parent mode: the state file deleted, sync finds each parent again by its label and marker; no group gets a second parent", async () => {
    world = await start(GROUPING);
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    const before = parents(world)
      .map((p) => p.number)
      .sort();
    expect(before.length).toBeGreaterThan(0);
    await world.loseState();
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    // Contract, "Groups": at most one parent per group, ever.
    expect(
      parents(world)
        .map((p) => p.number)
        .sort(),
    ).toEqual(before);
    for (const [asset, members] of dueGroups(world)) {
      const parent = parentOf(world, asset);
      const children = world.gh.issues(REPO).filter((i) => i.parentId === parent?.id);
      expect(children).toHaveLength(members.length);
    }
  });

  it("single mode: the state file deleted, sync finds each group issue again; no group gets a second one, and every link still names its group's issue", async () => {
    world = await start("grouping:\n  by: asset\n  mode: single\n");
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    const before = world.gh
      .issues(REPO)
      .map((i) => i.number)
      .sort();
    expect(before.length).toBeGreaterThan(0);
    await world.loseState();
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    expect(
      world.gh
        .issues(REPO)
        .map((i) => i.number)
        .sort(),
    ).toEqual(before);
    const numbers = new Set(before);
    for (const id of world.sim.sim.threatIds()) {
      const ref = world.sim.sim.getThreat(id)?.external_references.find((r) => r.system === "github");
      if (ref) expect(numbers.has(Number(ref.external_id.split("#")[1]))).toBe(true);
    }
  });
});

describe("groups, single mode (end to end)", () => {
  const SINGLE = "grouping:\n  by: asset\n  mode: single\n";

  it("each group is one issue whose checklist lists its members; no member has its own; every member's link names it; a person's close becomes its members' verdicts", async () => {
    world = await start(SINGLE);
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    const all = world.gh.issues(REPO);
    expect(all.length).toBeGreaterThan(0);
    expect(all.every((i) => i.labels.includes("threatbridge:group"))).toBe(true);
    expect(all.some((i) => MARKER.test(i.body ?? ""))).toBe(false);
    const byNumber = new Map(all.map((i) => [i.number, i]));
    const linked = world.sim.sim
      .threatIds()
      .map((id) => world?.sim.sim.getThreat(id))
      .flatMap((t) => {
        const ref = t?.external_references.find((r) => r.system === "github");
        return t && ref ? [{ t, number: Number(ref.external_id.split("#")[1]) }] : [];
      });
    expect(linked.length).toBeGreaterThan(all.length);
    for (const { t, number } of linked) {
      const issue = byNumber.get(number);
      expect(issue?.body).toContain(`<!-- threatbridge:group=asset:${String(t["asset_id"])} -->`);
    }
    const open = all.find((i) => i.state === "open");
    if (!open) throw new Error("no open group issue");
    const members = linked.filter((l) => l.number === open.number && l.t.status === "unsolved");
    expect(members.length).toBeGreaterThan(0);
    world.gh.person.close(REPO, open.number, { reason: "completed", login: "alice" });
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    // `solved`, or `pending` where the platform verifies a fix first (spec, PATCH status).
    for (const m of members) expect(["solved", "pending"]).toContain(world.sim.sim.getThreat(m.t.id)?.status);
    expect(world.gh.issues(REPO).find((i) => i.number === open.number)?.state).toBe("closed");
    // The person's close stands: the members it closed hold the issue open no more.
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    expect(world.gh.issues(REPO).find((i) => i.number === open.number)?.state).toBe("closed");
  });

  it("the dry run lists the group issues it would make, with totals, and writes nothing", async () => {
    world = await start(SINGLE);
    const plan = await world.run(["sync", "--dry-run", "-c", world.configPath]);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain("create group issue");
    expect(plan.stdout).not.toMatch(/^create /m);
    expect(plan.stdout).toMatch(/totals: .*group \d+/);
    expect(world.gh.issues(REPO)).toHaveLength(0);
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    const made = Number(/group (\d+)/.exec(plan.stdout)?.[1]);
    expect(world.gh.issues(REPO)).toHaveLength(made);
  });
});
