import { afterEach, describe, expect, it } from "vitest";
import type { StandInIssue } from "../../src/github-stand-in/index.js";
import { GH_TOKEN, REPO, startWorld, type World } from "./world.js";

/**
 * Contract, "Workflow" → "Changing grouping", through the built CLI against the simulator and the
 * GitHub stand-in, as an operator would do it: a person closes a group issue (or a parent), the
 * operator changes `grouping` before the connector's next cycle, and the next cycles run. Black
 * box: only what GitHub and the platform show is checked, so the engine may change underneath.
 */

const SINGLE = "grouping:\n  by: asset\n  mode: single\n";
const PARENT = "grouping:\n  by: asset\n  mode: parent\n";
const OFF = "";
const THREAT_MARKER = /<!-- threatbridge:threat=([0-9a-f-]+)(?: occurrence=\d+)? -->/;
const GROUP_MARKER = /<!-- threatbridge:group=([^ ]+) -->/;
const VERDICT_ROUTE = "PATCH /v1/threats/{threat_id}";

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function start(yaml: string): Promise<World> {
  return startWorld({}, yaml, { standIn: { tokens: [GH_TOKEN] } });
}

async function sync(w: World): Promise<void> {
  expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);
}

function issues(w: World): StandInIssue[] {
  return w.gh.issues(REPO);
}

function groupIssues(w: World): StandInIssue[] {
  return issues(w).filter((i) => i.labels.includes("threatbridge:group"));
}

function issueByNumber(w: World, number: number): StandInIssue {
  const issue = issues(w).find((i) => i.number === number);
  if (!issue) throw new Error(`no issue #${number}`);
  return issue;
}

function verdicts(w: World): number {
  return w.sim.sim.stats().byRoute[VERDICT_ROUTE] ?? 0;
}

function threat(w: World, id: string): { status: string; asset: string; link: number | null } {
  const t = w.sim.sim.getThreat(id);
  if (!t) throw new Error(`no threat ${id}`);
  const ref = t.external_references.find((r) => r.system === "github");
  return {
    status: String(t["status"]),
    asset: String(t["asset_id"]),
    link: ref ? Number(ref.external_id.split("#")[1]) : null,
  };
}

/** The threats whose platform link names issue `number` and which are open (`unsolved`) on the platform. */
function openLinkedTo(w: World, number: number): string[] {
  return w.sim.sim.threatIds().filter((id) => {
    const t = threat(w, id);
    return t.link === number && t.status === "unsolved";
  });
}

/** Open issues carrying a threat's own marker, by threat. */
function ownOpenIssues(w: World): Map<string, StandInIssue[]> {
  const byThreat = new Map<string, StandInIssue[]>();
  for (const issue of issues(w)) {
    const id = THREAT_MARKER.exec(issue.body ?? "")?.[1];
    if (id === undefined || issue.state !== "open") continue;
    byThreat.set(id, [...(byThreat.get(id) ?? []), issue]);
  }
  return byThreat;
}

/**
 * The contract's guarantees after a change of grouping, whatever the change: no threat with two
 * open issues (its own, or its own and an open group issue standing for it), no group marker on two
 * open issues, no open parent or group issue without an open member.
 */
/** Settled: one more cycle writes nothing to GitHub. */
async function expectSettled(w: World): Promise<void> {
  const writes = w.gh.counters().writes;
  await sync(w);
  expect(w.gh.counters().writes).toBe(writes);
}

function expectConsistent(w: World): void {
  const own = ownOpenIssues(w);
  for (const [id, list] of own) expect(list, `threat ${id}`).toHaveLength(1);
  const openGroups = groupIssues(w).filter((i) => i.state === "open");
  const markers = openGroups.map((i) => GROUP_MARKER.exec(i.body ?? "")?.[1]);
  expect(new Set(markers).size).toBe(markers.length);
  for (const group of openGroups) {
    const [by = "", encoded = ""] = (GROUP_MARKER.exec(group.body ?? "")?.[1] ?? "").split(":");
    const key = decodeURIComponent(encoded);
    const open = w.sim.sim.threatIds().filter((id) => {
      const t = w.sim.sim.getThreat(id);
      return t?.status === "unsolved" && String(by === "asset" ? t["asset_id"] : t["module"]) === key;
    });
    expect(open.length, `open group issue #${group.number}`).toBeGreaterThan(0);
  }
  // A threat whose link names a group issue has no open issue of its own.
  const groupNumbers = new Set(groupIssues(w).map((i) => i.number));
  for (const id of w.sim.sim.threatIds()) {
    const link = threat(w, id).link;
    if (link !== null && groupNumbers.has(link)) expect(own.has(id), `threat ${id}`).toBe(false);
  }
}

/** A retired issue: closed as not planned, its marker gone, one comment saying why and naming `carriers`. */
function expectRetired(w: World, number: number, carriers: readonly number[]): void {
  const issue = issueByNumber(w, number);
  expect(issue.state).toBe("closed");
  expect(issue.stateReason).toBe("not_planned");
  expect(issue.body).not.toMatch(GROUP_MARKER);
  const said = w.gh.comments(REPO, number).filter((c) => c.body.includes("grouping setting changed"));
  expect(said).toHaveLength(1);
  for (const n of carriers) expect(said[0]?.body).toContain(`${REPO}#${n}`);
}

/** The asset of a group issue's marker (`by: asset`), read before it is retired. */
function assetOf(group: StandInIssue): string {
  const key = GROUP_MARKER.exec(group.body ?? "")?.[1];
  if (key === undefined) throw new Error(`#${group.number} carries no group marker`);
  return decodeURIComponent(key.replace(/^asset:/, ""));
}

/** The numbers of the open own issues of the threats of an asset. */
function ownIssuesOfAsset(w: World, asset: string): number[] {
  return [...ownOpenIssues(w)]
    .filter(([id]) => threat(w, id).asset === asset)
    .flatMap(([, list]) => list.map((i) => i.number));
}

/** The open group issue with the most open members (single mode). */
function busiestGroupIssue(w: World): { issue: StandInIssue; members: string[] } {
  const ranked = groupIssues(w)
    .filter((i) => i.state === "open")
    .map((issue) => ({ issue, members: openLinkedTo(w, issue.number) }))
    .sort((a, b) => b.members.length - a.members.length);
  const first = ranked[0];
  if (!first || first.members.length === 0) throw new Error("the seed gives no open group issue");
  return first;
}

/** The open parent with the most open members (parent mode), and their own issues. */
function busiestParent(w: World): { parent: StandInIssue; members: StandInIssue[] } {
  const ranked = groupIssues(w)
    .filter((p) => p.state === "open")
    .map((parent) => ({ parent, members: issues(w).filter((i) => i.parentId === parent.id) }))
    .sort((a, b) => b.members.length - a.members.length);
  const first = ranked[0];
  if (!first || first.members.length < 2) throw new Error("the seed gives no parent");
  return first;
}

describe("changing grouping loses nothing (contract, Workflow: Changing grouping)", () => {
  it("single → off with a person's close not absorbed yet: each member gets its verdict once and no issue; the group issue is retired; the others' members get issues of their own", async () => {
    world = await start(SINGLE);
    await sync(world);
    await sync(world);
    const { issue: closed, members } = busiestGroupIssue(world);
    const others = groupIssues(world)
      .filter((i) => i.number !== closed.number)
      .map((i) => ({ number: i.number, asset: assetOf(i) }));
    world.gh.person.close(REPO, closed.number, { reason: "completed", login: "alice" });
    await world.writeConfig(OFF);
    const before = verdicts(world);
    await sync(world);
    await sync(world);
    // Absorbed under the old setting: one verdict per open member, none twice.
    expect(verdicts(world) - before).toBe(members.length);
    for (const id of members) expect(["solved", "pending"]).toContain(threat(world, id).status);
    const own = ownOpenIssues(world);
    for (const id of members) expect(own.has(id)).toBe(false);
    expectRetired(world, closed.number, []);
    // Every other group issue is retired too, naming its members' new issues.
    for (const other of others) expectRetired(world, other.number, ownIssuesOfAsset(world, other.asset));
    expect(others.some((o) => ownIssuesOfAsset(world as World, o.asset).length > 0)).toBe(true);
    expect(groupIssues(world).filter((i) => i.state === "open")).toHaveLength(0);
    expectConsistent(world);
    await expectSettled(world);
  });

  it("single → parent with a person's close not absorbed yet: verdicts once, under single mode; the old group issues retired before any parent takes their marker", async () => {
    world = await start(SINGLE);
    await sync(world);
    await sync(world);
    const { issue: closed, members } = busiestGroupIssue(world);
    const others = groupIssues(world)
      .filter((i) => i.number !== closed.number)
      .map((i) => ({ number: i.number, asset: assetOf(i) }));
    const oldNumbers = new Set(groupIssues(world).map((i) => i.number));
    world.gh.person.close(REPO, closed.number, { reason: "completed", login: "alice" });
    await world.writeConfig(PARENT);
    // The dry run shows the change first and writes nothing (contract, "sync --dry-run").
    const files = await world.stateFiles();
    const writesBefore = world.gh.counters().writes;
    const plan = await world.run(["sync", "--dry-run", "-c", world.configPath]);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain("close (not planned): grouping changed");
    expect(await world.stateFiles()).toEqual(files);
    expect(world.gh.counters().writes).toBe(writesBefore);
    const before = verdicts(world);
    await sync(world);
    await sync(world);
    expect(verdicts(world) - before).toBe(members.length);
    for (const id of members) expect(["solved", "pending"]).toContain(threat(world, id).status);
    const own = ownOpenIssues(world);
    for (const id of members) expect(own.has(id)).toBe(false);
    expectRetired(world, closed.number, []);
    for (const other of others) expectRetired(world, other.number, ownIssuesOfAsset(world, other.asset));
    // New parents for the groups with two open members: some carry a retired issue's marker, alone.
    const parents = groupIssues(world).filter((i) => !oldNumbers.has(i.number));
    expect(parents.length).toBeGreaterThan(0);
    expect(parents.some((p) => others.some((o) => p.body?.includes(`group=asset:${o.asset} `)))).toBe(true);
    expectConsistent(world);
    await expectSettled(world);
  });

  it("parent → single with a person's close of a parent not absorbed yet: no verdict (a parent carries none), the parents retired naming their members' own issues, no group issue for threats that have their own", async () => {
    world = await start(PARENT);
    await sync(world);
    await sync(world);
    const { parent, members } = busiestParent(world);
    const parentsBefore = groupIssues(world).map((p) => ({
      number: p.number,
      children: issues(world as World)
        .filter((i) => i.parentId === p.id)
        .map((i) => i.number),
    }));
    world.gh.person.close(REPO, parent.number, { reason: "completed", login: "alice" });
    await world.writeConfig(SINGLE);
    const before = verdicts(world);
    await sync(world);
    await sync(world);
    expect(verdicts(world) - before).toBe(0);
    for (const m of members) expect(issueByNumber(world, m.number).state).toBe(m.state);
    for (const p of parentsBefore) {
      const open = p.children.filter((n) => issueByNumber(world as World, n).state === "open");
      expectRetired(world, p.number, open);
    }
    // Switching single on leaves threats that already have an issue as they are.
    expect(groupIssues(world).filter((i) => i.state === "open")).toHaveLength(0);
    expectConsistent(world);
    await expectSettled(world);
  });

  it("parent → off: every parent retired, naming its members' issues; a group all solved afterwards leaves no parent open", async () => {
    world = await start(PARENT);
    await sync(world);
    await sync(world);
    const { parent, members } = busiestParent(world);
    world.gh.person.close(REPO, parent.number, { reason: "not_planned", login: "alice" });
    await world.writeConfig(OFF);
    const before = verdicts(world);
    await sync(world);
    expect(verdicts(world) - before).toBe(0);
    const open = members.filter((m) => m.state === "open").map((m) => m.number);
    expectRetired(world, parent.number, open);
    expect(groupIssues(world).filter((i) => i.state === "open")).toHaveLength(0);
    // Every member solved by people with grouping off: one verdict each, and no parent reopens.
    for (const n of open) world.gh.person.close(REPO, n, { reason: "completed", login: "bob" });
    await sync(world);
    await sync(world);
    expect(verdicts(world) - before).toBe(open.length);
    expect(groupIssues(world).filter((i) => i.state === "open")).toHaveLength(0);
    expectConsistent(world);
  });

  it("parent by asset → parent by module, a person's close of a parent pending: the old parents retired naming their members' issues, new parents by module, each marker on one open issue", async () => {
    world = await start(PARENT);
    await sync(world);
    await sync(world);
    const { parent } = busiestParent(world);
    const parentsBefore = groupIssues(world).map((p) => ({
      number: p.number,
      children: issues(world as World)
        .filter((i) => i.parentId === p.id)
        .map((i) => i.number),
    }));
    world.gh.person.close(REPO, parent.number, { reason: "completed", login: "alice" });
    await world.writeConfig("grouping:\n  by: module\n  mode: parent\n");
    const before = verdicts(world);
    await sync(world);
    await sync(world);
    expect(verdicts(world) - before).toBe(0);
    for (const p of parentsBefore) {
      const open = p.children.filter((n) => issueByNumber(world as World, n).state === "open");
      expectRetired(world, p.number, open);
    }
    const byModule = groupIssues(world).filter((i) => i.body?.includes("<!-- threatbridge:group=module:"));
    expect(byModule.length).toBeGreaterThan(0);
    for (const p of byModule) {
      const children = issues(world).filter((i) => i.parentId === p.id);
      expect(children.length, `parent #${p.number}`).toBeGreaterThan(0);
    }
    expectConsistent(world);
    await expectSettled(world);
  });
});
