import { afterEach, describe, expect, it } from "vitest";
import type { Clock } from "../../src/shared/clock.js";
import { WORKFLOW_FEATURES_YAML } from "./feature-config.js";
import { threatOf } from "./people-helpers.js";
import { GH_TOKEN, REPO, startWorld, type World } from "./world.js";

/**
 * Contract, "Workflow": "`sync --dry-run` shows every one of these writes before they happen"; "The
 * conversation back": it "lists note writes and project writes like any other". A write brings
 * others with it in the same cycle (an acceptance's PATCH its dated comment, its end the new issue
 * of a recurrence, a project item's add the PATCH of its fields, a new parent its own item): the dry
 * run lists each as the sync then writes it. Each test runs the dry run and then the real sync on
 * the same world at the same moment and compares the dry run's lines with the sync's audit lines,
 * by action and subject (a threat's id, or a group's key).
 */

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const DAY = 86_400_000;
const later = (days: number): Clock => ({ now: () => Date.now() + days * DAY });

interface Line {
  action: string;
  threat_id: string;
}

const named = (line: Line): string => `${line.action} ${line.threat_id}`;

/** The dry run's lines, then the real sync's audit lines, on the same world, `days` from now; sorted. */
async function dryThenReal(w: World, days = 0): Promise<{ planned: string[]; done: string[] }> {
  const clock = days === 0 ? {} : { clock: later(days) };
  const dry = await w.run(["sync", "--dry-run", "--json", "-c", w.configPath], clock);
  expect(dry.code, dry.stderr + dry.stdout).toBe(0);
  const planned = dry.stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Line)
    // An issue the state lost, found by its marker: a read, no write.
    .filter((l) => l.action !== "adopt")
    .map(named);
  const sync = await w.run(["sync", "-c", w.configPath], { ...clock, logs: true });
  expect(sync.code, sync.stderr).toBe(0);
  const done = sync.stderr
    .split("\n")
    .filter((l) => l.includes('"audit":true'))
    .map((l) => named(JSON.parse(l) as Line));
  return { planned: planned.sort(), done: done.sort() };
}

const ACCEPTANCE = `acceptance:
  label: risk-accepted
  default: 30d
  max: 90d
  warn_before: 7d
`;

const PROJECT = `token: \${GITHUB_TOKEN}
  project:
    owner: acme
    number: 3
    fields:
      Severity: "{{ threat.severity }}"
      Group: "{{ group.key }}"`;

function makeProject(w: World): void {
  w.gh.projects.create({
    owner: "acme",
    ownerType: "org",
    number: 3,
    fields: [
      { name: "Severity", type: "single_select", options: ["critical", "high", "medium", "low"] },
      { name: "Group", type: "text" },
    ],
  });
}

/** An open issue of an `unsolved` threat, labelled and closed "not planned" by alice. */
function acceptOne(w: World): { number: number; threatId: string } {
  const issue = w.gh
    .issues(REPO)
    .find(
      (i) =>
        i.state === "open" &&
        !i.labels.includes("threatbridge:group") &&
        w.sim.sim.getThreat(threatOf(i.body))?.status === "unsolved",
    );
  if (!issue) throw new Error("no open issue of an unsolved threat");
  w.gh.person.relabel(REPO, issue.number, [...issue.labels, "risk-accepted"], "alice");
  w.gh.person.close(REPO, issue.number, { reason: "not_planned", login: "alice" });
  return { number: issue.number, threatId: threatOf(issue.body) };
}

const count = (lines: string[], line: string): number => lines.filter((l) => l === line).length;

describe("sync --dry-run lists what each write brings with it in the same cycle", () => {
  it("contract, Risk acceptance: the acceptance's PATCH is listed with the comment naming its end", async () => {
    world = await startWorld({ threats: 6 }, ACCEPTANCE);
    const w = world;
    expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);
    const { threatId } = acceptOne(w);
    const { planned, done } = await dryThenReal(w);
    expect(done).toEqual([`accept ${threatId}`, `comment ${threatId}`]);
    expect(planned).toEqual(done);
  });

  it("contract, Recurrence: an acceptance's end is listed with the new issue it opens, the comment naming it on the old one and its link", async () => {
    world = await startWorld({ threats: 6 }, `${ACCEPTANCE}recurrence: new_issue\n`);
    const w = world;
    expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);
    const { threatId } = acceptOne(w);
    expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);
    const { planned, done } = await dryThenReal(w, 31);
    expect(done).toEqual(
      [`comment ${threatId}`, `expire ${threatId}`, `link ${threatId}`, `recur ${threatId}`].sort(),
    );
    expect(planned).toEqual(done);
  });

  it("contract, Risk acceptance with recurrence: reopen: an acceptance's end is listed with the reopen that follows it", async () => {
    world = await startWorld({ threats: 6 }, ACCEPTANCE);
    const w = world;
    expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);
    const { threatId } = acceptOne(w);
    expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);
    const { planned, done } = await dryThenReal(w, 31);
    expect(done).toContain(`expire ${threatId}`);
    expect(done).toContain(`reopen ${threatId}`);
    expect(planned).toEqual(done);
  });

  it("contract, Projects: each new issue's item is listed with the PATCH of its fields, and a new parent's item with its own", async () => {
    world = await startWorld({ threats: 12, assets: 4 }, "grouping:\n  by: asset\n", {
      standIn: { tokens: [GH_TOKEN] },
      githubAuthYaml: PROJECT,
    });
    const w = world;
    makeProject(w);
    const { planned, done } = await dryThenReal(w);
    const parents = w.gh.issues(REPO).filter((i) => i.labels.includes("threatbridge:group"));
    expect(parents.length).toBeGreaterThan(0);
    const groups = done.filter((l) => l.startsWith("group ")).map((l) => l.slice("group ".length));
    for (const group of groups) expect(count(done, `project ${group}`), group).toBe(2);
    for (const create of done.filter((l) => l.startsWith("create ")))
      expect(count(done, `project ${create.slice("create ".length)}`), create).toBe(2);
    expect(planned).toEqual(done);
  });
});

describe("sync --dry-run names each write as its audit line does", () => {
  it("contract, SLA: switched on for existing issues, each issue's content update and its move into its weekly milestone are `update` lines, and each milestone made for them a `milestone` line, once", async () => {
    world = await startWorld({ threats: 8, assets: 4 });
    const w = world;
    expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);
    w.sim.sim.settle();
    await w.writeConfig(
      "sla:\n  critical: 7d\n  high: 30d\n  medium: 90d\n  low: 180d\n  milestones: weekly\n",
    );
    const { planned, done } = await dryThenReal(w);
    expect(done.filter((l) => l.startsWith("milestone ")).length).toBeGreaterThan(0);
    expect(planned).toEqual(done);
  });
});

describe("sync --dry-run with every feature on", () => {
  it("contract, --dry-run shows every write before it happens: cycle after cycle, its lines are the sync's audit lines (action and subject)", async () => {
    world = await startWorld(
      { threats: 16, assets: 4 },
      `${WORKFLOW_FEATURES_YAML}render:
  related_assets: 5
${ACCEPTANCE}recurrence: new_issue
`,
      { standIn: { tokens: [GH_TOKEN] }, githubAuthYaml: PROJECT },
    );
    const w = world;
    makeProject(w);
    const cycles: Array<{ what: string; days: number; change?: () => void }> = [
      { what: "a fresh state", days: 0 },
      {
        what: "a person's acceptance, a person's close, a platform's solve",
        days: 0,
        change: () => {
          acceptOne(w);
          const open = w.gh
            .issues(REPO)
            .filter((i) => i.state === "open" && !i.labels.includes("threatbridge:group"));
          const [byPerson, byPlatform] = open;
          if (!byPerson || !byPlatform) throw new Error("the seed has too few open issues");
          w.gh.person.close(REPO, byPerson.number, { reason: "completed", login: "bob" });
          w.sim.sim.updateThreat(threatOf(byPlatform.body), { status: "solved" });
        },
      },
      { what: "the warning before the acceptance's end", days: 25 },
      { what: "the acceptance's end, the SLA's breaches", days: 31 },
      {
        what: "a solved threat unsolved again",
        days: 31,
        change: () => {
          const solved = w.sim.sim.threatIds().find((id) => w.sim.sim.getThreat(id)?.status === "solved");
          if (solved) w.sim.sim.updateThreat(solved, { status: "unsolved" });
        },
      },
    ];
    let writes = 0;
    for (const cycle of cycles) {
      cycle.change?.();
      const { planned, done } = await dryThenReal(w, cycle.days);
      writes += done.length;
      expect(planned, cycle.what).toEqual(done);
      w.sim.sim.settle();
    }
    expect(writes).toBeGreaterThan(0);
  });
});

describe("sync --dry-run with single-mode groups and a change of grouping", () => {
  it("contract, Groups and Changing grouping: a new group issue with its members' links and its project item, a person's close of it with the members' verdicts, then the old issues' retirement with its comments: each cycle's lines are the sync's audit lines", async () => {
    world = await startWorld(
      { threats: 12, assets: 4 },
      "grouping:\n  by: asset\n  mode: single\nnotes: {}\n",
      { standIn: { tokens: [GH_TOKEN] }, githubAuthYaml: PROJECT },
    );
    const w = world;
    makeProject(w);
    const compare = async (what: string): Promise<string[]> => {
      const { planned, done } = await dryThenReal(w);
      expect(planned, what).toEqual(done);
      w.sim.sim.settle();
      return done;
    };
    const made = await compare("a fresh state");
    expect(made.filter((l) => l.startsWith("link ")).length).toBeGreaterThan(0);
    await compare("the links' echo");
    const issue = w.gh
      .issues(REPO)
      .find((i) => i.labels.includes("threatbridge:group") && i.state === "open");
    if (!issue) throw new Error("no open group issue");
    w.gh.person.close(REPO, issue.number, { reason: "completed", login: "alice" });
    expect((await compare("a person's close of a group issue")).some((l) => l.startsWith("verdict "))).toBe(
      true,
    );
    await w.writeConfig("notes: {}\n");
    const retired = await compare("grouping switched off");
    expect(retired.filter((l) => l.startsWith("comment ")).length).toBeGreaterThan(0);
    await compare("the members' own issues' follow-ups");
  });
});
