import { afterEach, describe, expect, it } from "vitest";
import type { Clock } from "../../src/shared/clock.js";
import { DAY_MS } from "../../src/shared/duration.js";
import { GH_TOKEN, REPO, startWorld, type World } from "./world.js";

/**
 * Contract, "Workflow" → "SLA", through the built CLI against the simulator and the GitHub
 * stand-in: due dates in the body, the breach label once an open issue passes its due date (one
 * write each, no read of the issue, nothing when nothing is due), a person's removal of the label
 * not fought over, weekly milestones made on demand, and `status` / dry run showing it. Days pass
 * through the engine's clock (real time plus an offset), never by waiting.
 */

const SLA = `sla:
  critical: 7d
  high: 30d
  medium: 90d
  low: 180d
  breach_label: "sla:breached"
  milestones: weekly
`;

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const later = (days: number): Clock => ({ now: () => Date.now() + days * DAY_MS });

interface Milestone {
  number: number;
  title: string;
  due_on: string | null;
}

async function milestones(w: World): Promise<Milestone[]> {
  const res = await fetch(`${w.gh.url}/repos/${REPO}/milestones?state=all&per_page=100`, {
    headers: { authorization: `token ${GH_TOKEN}` },
  });
  return (await res.json()) as Milestone[];
}

const due = (body: string | null): string | null => /Due: (\d{4}-\d{2}-\d{2})/.exec(body ?? "")?.[1] ?? null;
const writes = (w: World): number => w.gh.counters().writes;
const issueReads = (w: World): number =>
  w.gh.counters().byRoute["GET /repos/{owner}/{repo}/issues/{issue_number}"] ?? 0;

describe("SLA due dates, breach label and weekly milestones (end to end)", () => {
  it("issues show their due day and sit in the milestone of its week; a breach is one label write per issue, none when nothing is due, and a person's removal is not fought", async () => {
    world = await startWorld({}, SLA);
    const first = await world.run(["sync", "-c", world.configPath]);
    expect(first.code).toBe(0);
    const issues = world.gh.issues(REPO);
    expect(issues.length).toBeGreaterThan(0);
    const withDue = issues.filter((i) => due(i.body) !== null);
    expect(withDue.length).toBeGreaterThan(0);
    // Every due day is within the longest duration (180 days) of now.
    for (const issue of withDue) {
      const ms = Date.parse(`${due(issue.body) ?? ""}T00:00:00Z`);
      expect(ms).toBeLessThanOrEqual(Date.now() + 181 * DAY_MS);
      expect(ms).toBeGreaterThan(Date.now() - 2 * DAY_MS);
    }
    // Weekly milestones: "SLA <Sunday of the due week>", due that Sunday; every open issue with a
    // due date is in the one of its week.
    const made = await milestones(world);
    expect(made.length).toBeGreaterThan(0);
    const byNumber = new Map(made.map((m) => [m.number, m]));
    for (const m of made) {
      expect(m.title).toMatch(/^SLA \d{4}-\d{2}-\d{2}$/);
      const sunday = m.title.slice(4);
      expect(new Date(`${sunday}T00:00:00Z`).getUTCDay()).toBe(0);
      expect(m.due_on?.slice(0, 10)).toBe(sunday);
    }
    for (const issue of withDue.filter((i) => i.state === "open")) {
      const m = issue.milestone === null ? undefined : byNumber.get(issue.milestone);
      expect(m, `#${issue.number}`).toBeDefined();
      const sunday = Date.parse(`${m?.title.slice(4) ?? ""}T00:00:00Z`);
      const day = Date.parse(`${due(issue.body) ?? ""}T00:00:00Z`);
      expect(sunday - day).toBeGreaterThanOrEqual(0);
      expect(sunday - day).toBeLessThan(7 * DAY_MS);
    }
    expect(first.stdout).toContain(
      `sla: breach labels 0, milestones made ${String(made.length)}, issues put in one 0`,
    );
    // Set on create (the create's `milestone`): no issue was PATCHed for it; each milestone made once.
    expect(world.gh.counters().byRoute["PATCH /repos/{owner}/{repo}/issues/{issue_number}"] ?? 0).toBe(0);
    expect(world.gh.counters().byRoute["POST /repos/{owner}/{repo}/milestones"]).toBe(made.length);
    // Listed once by the connector in its process (the second list is this test's own).
    expect(world.gh.counters().byRoute["GET /repos/{owner}/{repo}/milestones"]).toBe(2);
    // status: none breached yet; the critical ones (7 days) are due within 7 days a day later.
    const critical = withDue.filter((i) => i.state === "open" && i.labels.includes("severity:critical"));
    const soon = await world.run(["status", "-c", world.configPath, "--json"], { clock: later(1) });
    expect(JSON.parse(soon.stdout)).toMatchObject({
      sla: { breached: 0, due_within_7_days: critical.length },
    });
    const text = await world.run(["status", "-c", world.configPath], { clock: later(1) });
    expect(text.stdout).toContain(
      `sla:        0 open issues past their due date, ${String(critical.length)} due within 7 days`,
    );
    // A day later nothing is due: no write at all, and no issue read.
    const [w0, r0] = [writes(world), issueReads(world)];
    expect((await world.run(["sync", "-c", world.configPath], { clock: later(1) })).code).toBe(0);
    expect(writes(world)).toBe(w0);
    expect(issueReads(world)).toBe(r0);
    expect(world.gh.issues(REPO).some((i) => i.labels.includes("sla:breached"))).toBe(false);
    // 200 days on, every open issue with a due date is breached: one label write each, no read.
    const openWithDue = world.gh.issues(REPO).filter((i) => i.state === "open" && due(i.body) !== null);
    const breach = await world.run(["sync", "-c", world.configPath, "--json"], { clock: later(200) });
    expect(breach.code).toBe(0);
    const json = JSON.parse(breach.stdout) as { counters: Record<string, number> };
    expect(json.counters["sla_breach_labels"]).toBe(openWithDue.length);
    expect(writes(world) - w0).toBe(openWithDue.length);
    expect(issueReads(world)).toBe(r0);
    const labelled = world.gh.issues(REPO).filter((i) => i.labels.includes("sla:breached"));
    expect(labelled.map((i) => i.number).sort()).toEqual(openWithDue.map((i) => i.number).sort());
    // The body did not change with the breach (its hash holds only the due day).
    for (const issue of labelled)
      expect(issue.body).toBe(openWithDue.find((i) => i.number === issue.number)?.body);
    // The next cycle: nothing new is due, nothing is written.
    const w1 = writes(world);
    expect((await world.run(["sync", "-c", world.configPath], { clock: later(201) })).code).toBe(0);
    expect(writes(world)).toBe(w1);
    // A later content update of a breached issue keeps the label, and does not add it again.
    const edited = labelled[1];
    const editedId = /threatbridge:threat=([0-9a-f-]{36})/.exec(edited?.body ?? "")?.[1];
    if (!edited || !editedId) throw new Error("no second breached issue with a marker");
    world.sim.sim.updateThreat(editedId, { name: "Renamed on the platform" });
    const labelPosts = (): number =>
      world?.gh.counters().byRoute["POST /repos/{owner}/{repo}/issues/{issue_number}/labels"] ?? 0;
    const postsBefore = labelPosts();
    expect((await world.run(["sync", "-c", world.configPath], { clock: later(201) })).code).toBe(0);
    const renamed = world.gh.issues(REPO).find((i) => i.number === edited.number);
    expect(renamed?.title).toContain("Renamed on the platform");
    expect(renamed?.labels).toContain("sla:breached");
    expect(labelPosts()).toBe(postsBefore);
    // A person removes the label: the connector leaves it off (and says so once).
    const target = labelled[0];
    if (!target) throw new Error("no breached issue");
    world.gh.person.relabel(
      REPO,
      target.number,
      target.labels.filter((l) => l !== "sla:breached"),
      "alice",
    );
    const run = await world.cli(["sync", "-c", world.configPath], { timeoutMs: 60_000 });
    expect(run.code).toBe(0);
    expect(world.gh.issues(REPO).find((i) => i.number === target.number)?.labels).not.toContain(
      "sla:breached",
    );
    const said = run.stderr.split("\n").filter((l) => l.includes("removed the SLA breach label"));
    expect(said).toHaveLength(1);
    // Status gives the breached count (and none due within 7 days: all are past due).
    const status = await world.run(["status", "-c", world.configPath, "--json"], { clock: later(202) });
    const doc = JSON.parse(status.stdout) as { sla?: { breached: number; due_within_7_days: number } };
    expect(doc.sla?.breached).toBe(openWithDue.length);
    expect(doc.sla?.due_within_7_days).toBe(0);
  });

  it("switching SLAs on: the dry run lists the due-date updates, milestones and breach labels it would write, with totals; nothing is written", async () => {
    world = await startWorld({});
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    const before = writes(world);
    await world.writeConfig(SLA);
    const dry = await world.run(["sync", "-c", world.configPath, "--dry-run"], { clock: later(200) });
    expect(dry.code).toBe(0);
    expect(writes(world)).toBe(before);
    const out = dry.stdout;
    // Each open issue gets its due day (a content update) and its weekly milestone; nothing is
    // breached yet (the SLA starts now, at its first sighting by the connector).
    expect(out).toMatch(/^update\s/m);
    expect(out).toMatch(/^milestone\s.*milestone "SLA \d{4}-\d{2}-\d{2}"$/m);
    expect(out).not.toMatch(/SLA breached$/m);
    expect(out).toMatch(/^totals: update \d+, milestone \d+$/m);
    // Switched on for real: each open issue gets its due line and is moved into its milestone.
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    const byTitle = new Map((await milestones(world)).map((m) => [m.number, m.title]));
    for (const issue of world.gh.issues(REPO).filter((i) => i.state === "open" && due(i.body) !== null)) {
      const title = issue.milestone === null ? undefined : byTitle.get(issue.milestone);
      expect(title, `#${String(issue.number)}`).toMatch(/^SLA \d{4}-\d{2}-\d{2}$/);
    }
    // Then 200 days on: the dry run lists the breach labels, with totals.
    const open = world.gh.issues(REPO).filter((i) => i.state === "open" && due(i.body) !== null).length;
    const after = writes(world);
    const breach = await world.run(["sync", "-c", world.configPath, "--dry-run"], { clock: later(200) });
    expect(writes(world)).toBe(after);
    // Under the audit line's name: the breach label is an update of the issue.
    expect(breach.stdout).toMatch(/^update\s.*sla:breached\s.*SLA breached$/m);
    expect(breach.stdout).toMatch(new RegExp(`^totals: update ${String(open)}$`, "m"));
  });

  it("a lost state file does not restart SLAs: the due dates are found again in the issues, and nothing is rewritten", async () => {
    world = await startWorld({}, SLA);
    const w = world;
    expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);
    const before = new Map(w.gh.issues(REPO).map((i) => [i.number, due(i.body)]));
    expect([...before.values()].some((d) => d !== null)).toBe(true);

    await w.loseState();
    const writesBefore = writes(w);
    // Three days later: a restarted SLA would move every due date three days on.
    const again = await w.run(["sync", "-c", w.configPath], { clock: later(3) });
    expect(again.code, again.stderr).toBe(0);
    expect(new Map(w.gh.issues(REPO).map((i) => [i.number, due(i.body)]))).toEqual(before);
    expect(writes(w) - writesBefore, JSON.stringify(w.gh.counters().byRoute)).toBe(0);
  });
});
