import { afterEach, describe, expect, it } from "vitest";
import { threatOf } from "./people-helpers.js";
import { REPO, startWorld, type World } from "./world.js";

/**
 * `sync --dry-run` as a plan a person can read (contract, "--dry-run"), from the built CLI's main
 * in this process: what it prints is the lines it hands to stdout.
 */

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const ZERO_WIDTH = /[\u200B-\u200F\u2060\uFEFF]/;

function parseLines(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const value: unknown = JSON.parse(line);
      if (typeof value !== "object" || value === null) throw new Error(`not an object: ${line}`);
      return { ...value };
    });
}

describe("sync --dry-run: a plan", () => {
  it("shows a header of what was read, a table with severity, title, labels and assignees, totals and why threats get no issue; no zero-width characters", async () => {
    world = await startWorld(
      {},
      `routes:
  - match: { severity: [critical] }
    labels: [urgent]
    assignees: [alice]
filters:
  min_severity: low
`,
    );
    const added = world.sim.sim.addThreat({
      severity: "critical",
      status: "unsolved",
      name: "db#1 open to @admin at https://db.example.com",
    });
    const result = await world.run(["sync", "-c", world.configPath, "--dry-run"]);
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toMatch(/^read: \d+ assets, \d+ threats, \d+ changed issues on GitHub/m);
    expect(out).toMatch(/ACTION\s+SEVERITY\s+THREAT\s+TITLE\s+ISSUE\s+LABELS\s+ASSIGNEES/);
    const row = out.split("\n").find((line) => line.includes(added.id)) ?? "";
    expect(row).toMatch(/^create\s+critical\s/);
    expect(row).toContain("db#1 open to @admin at https://db.example.com");
    expect(row).toContain(`${REPO} (new)`);
    expect(row).toContain("urgent");
    expect(row).toContain("alice");
    expect(out).not.toMatch(ZERO_WIDTH);
    const creates = out.split("\n").filter((line) => line.startsWith("create ")).length;
    // Each new issue's link back to its threat is a write of the same cycle (contract: every action).
    const links = out.split("\n").filter((line) => line.startsWith("link ")).length;
    expect(links).toBe(creates);
    expect(out).toMatch(new RegExp(`^totals: create ${creates}, link ${links}$`, "m"));
    // The seeded data has threats first seen solved and informational ones (below min_severity: low).
    expect(out).toMatch(
      /^no issue: [1-9]\d* first seen solved or closed \(.+\); [1-9]\d* below min_severity;/m,
    );
    expect(world.gh.issues(REPO)).toHaveLength(0);
  });

  it("--json: one object per action with severity; on a fresh state with existing issues the adoptions are shown", async () => {
    world = await startWorld();
    const first = await world.run(["sync", "-c", world.configPath]);
    expect(first.code).toBe(0);
    const issues = world.gh.issues(REPO);
    expect(issues.length).toBeGreaterThan(0);
    // The state file is lost: a dry run must show that the existing issues would be adopted.
    await world.loseState();
    const json = await world.run(["sync", "-c", world.configPath, "--dry-run", "--json"]);
    expect(json.code).toBe(0);
    const records = parseLines(json.stdout);
    const adopted = records.filter((r) => r["action"] === "adopt");
    expect(adopted).toHaveLength(issues.length);
    for (const r of adopted) {
      expect(r["repository"]).toBe(REPO);
      expect(typeof r["issue"]).toBe("number");
      expect(r["severity"]).toMatch(/^(informational|low|medium|high|critical)$/);
      expect(typeof r["threat_id"]).toBe("string");
    }
    const text = await world.run(["sync", "-c", world.configPath, "--dry-run"]);
    expect(text.stdout).toMatch(new RegExp(`^totals: .*adopt ${issues.length}`, "m"));
    expect(text.stdout).toMatch(new RegExp(`^adopt\\s+\\w+\\s+\\S+\\s+.*${REPO}#\\d+`, "m"));
  });

  it("contract, --dry-run --json names the repository and issue of every write where known, with the audit log's action: a person's close is a verdict on its issue, a platform close and reopen are close and reopen (and the reopen's comment), and what writes nothing is not listed", async () => {
    world = await startWorld();
    const w = world;
    expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);
    const [toVerdict, toClose, toReopen, agreed] = w.gh.issues(REPO).filter((i) => i.state === "open");
    if (!toVerdict || !toClose || !toReopen || !agreed)
      throw new Error("the seed has fewer than four open issues");
    // Closed by a person and sent back as unsolved by the next scan: the connector reopens it.
    w.gh.person.close(REPO, toReopen.number, { reason: "completed", login: "carol" });
    expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);
    w.sim.sim.updateThreat(threatOf(toReopen.body), { status: "unsolved" });
    w.gh.person.close(REPO, toVerdict.number, { reason: "completed", login: "alice" });
    w.sim.sim.updateThreat(threatOf(toClose.body), { status: "solved" });
    // Solved on the platform and closed by a person alike: nothing is left to write to either side.
    w.sim.sim.updateThreat(threatOf(agreed.body), { status: "solved" });
    w.gh.person.close(REPO, agreed.number, { reason: "completed", login: "dave" });

    const json = await w.run(["sync", "-c", w.configPath, "--dry-run", "--json"]);
    expect(json.code).toBe(0);
    const records = parseLines(json.stdout);
    const lineOf = (body: string | null) => records.filter((r) => r["threat_id"] === threatOf(body));
    expect(lineOf(toVerdict.body)).toEqual([
      expect.objectContaining({ action: "verdict", repository: REPO, issue: toVerdict.number }),
    ]);
    expect(lineOf(toClose.body)).toEqual([
      expect.objectContaining({ action: "close", repository: REPO, issue: toClose.number }),
    ]);
    // The reopen's comment is a write of its own, with its own audit line.
    expect(lineOf(toReopen.body)).toEqual([
      expect.objectContaining({ action: "reopen", repository: REPO, issue: toReopen.number }),
      expect.objectContaining({ action: "comment", repository: REPO, issue: toReopen.number }),
    ]);
    expect(lineOf(agreed.body)).toEqual([]);
    const text = await w.run(["sync", "-c", w.configPath, "--dry-run"]);
    expect(text.stdout).toMatch(new RegExp(`^verdict\\s.*${REPO}#${toVerdict.number}\\s`, "m"));
    expect(text.stdout).toMatch(new RegExp(`^close\\s.*${REPO}#${toClose.number}\\s`, "m"));
  });
});
