import { stat } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { eligibleIds, firstSeenStatuses, REPO, worldFor, type World } from "./world.js";

/**
 * The contract's conventions, end to end: the built CLI against the simulator and the GitHub
 * stand-in. A child process (`cli`) where the process itself is what is checked (exit status,
 * stderr, stdout framing, failing before any network call); the built CLI's `main` in this process
 * (`run`) where the engine's answer is.
 */

const MARKER = /<!-- threatbridge:threat=([0-9a-fA-F-]{36}) -->/;

function markerIds(world: World): string[] {
  return world.gh
    .issues(REPO)
    .filter((i) => !i.isPullRequest)
    .map((i) => MARKER.exec(i.body ?? "")?.[1] ?? "")
    .sort();
}

/*
 * Each test has its own world, closed when it ends. The groups below run at the same time, each
 * group's tests one after another: the faults test is mostly waits (Retry-After, back-off), which
 * the other groups' work fills.
 */

describe.concurrent("threatbridge sync (end to end)", () => {
  it.sequential(
    "creates one labelled, marked issue per eligible threat and links each back as owner/name#number",
    async (t) => {
      const world = await worldFor(t);
      const firstSeen = firstSeenStatuses(world);
      const result = await world.cli(["sync", "-c", world.configPath]);
      expect(result.stderr).not.toContain("secret");
      expect(result.code).toBe(0);
      expect(markerIds(world)).toEqual(eligibleIds(world, firstSeen));
      world.sim.sim.settle();
      for (const issue of world.gh.issues(REPO)) {
        expect(issue.labels).toContain("threatbridge");
        const id = MARKER.exec(issue.body ?? "")?.[1] ?? "";
        const ref = world.sim.sim.getThreat(id)?.external_references.find((r) => r.system === "github");
        expect(ref?.external_id).toBe(`${REPO}#${issue.number}`);
        expect(ref?.url).toMatch(new RegExp(`/${REPO}/issues/${issue.number}$`));
        // Platform text is inert: no live mention, cross-reference or HTML from the platform.
        expect(issue.body ?? "").not.toMatch(/(^|[^\w`])@[A-Za-z0-9]/);
        expect(issue.body ?? "").not.toMatch(/(^|\s)#\d/);
      }
    },
  );

  it.sequential("a second sync with nothing new costs no GitHub write", async (t) => {
    const world = await worldFor(t);
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    world.sim.sim.settle();
    const before = world.gh.counters().writes;
    const again = await world.run(["sync", "-c", world.configPath, "--json"]);
    expect(again.code).toBe(0);
    expect(world.gh.counters().writes).toBe(before);
    const report: unknown = JSON.parse(again.stdout.trim().split("\n").at(-1) ?? "{}");
    expect(report).toMatchObject({ ok: true });
  });

  it.sequential("a person's close on GitHub becomes a PATCH verdict on the platform", async (t) => {
    const world = await worldFor(t);
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    const issue = world.gh.issues(REPO)[0];
    if (!issue) throw new Error("no issue was created");
    const id = MARKER.exec(issue.body ?? "")?.[1] ?? "";
    world.gh.person.close(REPO, issue.number, { reason: "completed", login: "alice" });
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    const threat = world.sim.sim.getThreat(id);
    expect(["solved", "pending"]).toContain(threat?.status);
    expect(threat?.status_note).toContain("alice");
    expect(world.gh.issues(REPO).find((i) => i.number === issue.number)?.state).toBe("closed");
  });

  it.sequential(
    "--dry-run prints every action, one JSON object per line, and writes nothing anywhere",
    async (t) => {
      const world = await worldFor(t);
      const result = await world.cli(["sync", "-c", world.configPath, "--dry-run", "--json"]);
      expect(result.code).toBe(0);
      const lines = result.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const creates = lines.filter((l) => l["action"] === "create");
      expect(creates.length).toBe(eligibleIds(world, firstSeenStatuses(world)).length);
      for (const line of creates) {
        expect(line).toHaveProperty("threat_id");
        expect(line["repository"]).toBe(REPO);
      }
      expect(world.gh.counters().writes).toBe(0);
      await expect(stat(world.statePath)).rejects.toThrow();
    },
  );

  it.sequential("--dry-run leaves an existing state file byte-for-byte as it was", async (t) => {
    const world = await worldFor(t);
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    world.sim.sim.addThreat({ severity: "critical" });
    const before = await world.stateFiles();
    expect(before.size).toBeGreaterThan(0);
    const result = await world.run(["sync", "-c", world.configPath, "--dry-run"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/create/);
    expect(await world.stateFiles()).toEqual(before);
  });

  it.sequential("status --json reports mapped threats, issues and the queue", async (t) => {
    const world = await worldFor(t);
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    const result = await world.run(["status", "-c", world.configPath, "--json"]);
    expect(result.code).toBe(0);
    const status = JSON.parse(result.stdout) as {
      threats: { mapped: number };
      issues: { open: number };
      queue: { total: number };
    };
    expect(status.threats.mapped).toBe(world.gh.issues(REPO).length);
    expect(status.issues.open).toBe(world.gh.issues(REPO).length);
    expect(status.queue.total).toBe(0);
  });

  it.sequential(
    "reconcile after a lost state file rebuilds the mapping and the next sync creates no duplicate",
    async (t) => {
      const world = await worldFor(t);
      expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
      const count = world.gh.issues(REPO).length;
      await world.loseState();
      const rec = await world.run(["reconcile", "-c", world.configPath]);
      expect(rec.code).toBe(0);
      expect(rec.stdout).toContain(`adopted ${count} issues`);
      const status = JSON.parse((await world.run(["status", "-c", world.configPath, "--json"])).stdout) as {
        threats: { mapped: number };
      };
      expect(status.threats.mapped).toBe(count);
      expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
      expect(world.gh.issues(REPO).length).toBe(count);
    },
  );

  it.sequential("a sync on a lost state file alone creates no duplicate either", async (t) => {
    const world = await worldFor(t);
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    const count = world.gh.issues(REPO).length;
    await world.loseState();
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    expect(world.gh.issues(REPO).length).toBe(count);
  });
});

describe.concurrent("threatbridge sync against faults on both sides (end to end)", () => {
  it("faults on both sides: 429s, 500s, duplicates and withheld changes still end in one issue per eligible threat", async (t) => {
    const world = await worldFor(t, { threats: 40 });
    const firstSeen = firstSeenStatuses(world);
    world.sim.sim.setFaults({ rate_429: 0.1, rate_500: 0.05, duplicate_rate: 0.3, withhold_recent_ms: 100 });
    let last = await world.run(["sync", "-c", world.configPath]);
    for (let i = 0; i < 5 && last.code !== 0; i += 1)
      last = await world.run(["sync", "-c", world.configPath]);
    world.sim.sim.setFaults({});
    const final = await world.run(["sync", "-c", world.configPath]);
    expect(final.code).toBe(0);
    expect(markerIds(world)).toEqual(eligibleIds(world, firstSeen));
  });
});

describe.concurrent("GitHub faults and pacing (end to end)", () => {
  it.sequential(
    "a lost create response, a 502 and a secondary limit cost no duplicate and no missing issue",
    async (t) => {
      const world = await worldFor(t);
      const firstSeen = firstSeenStatuses(world);
      world.gh.faults.loseNextResponse("POST", "/repos/{owner}/{repo}/issues");
      world.gh.faults.failNext("POST", "/repos/{owner}/{repo}/issues", 502);
      world.gh.faults.secondaryLimitNext("POST", "/repos/{owner}/{repo}/issues", 1);
      const result = await world.run(["sync", "-c", world.configPath]);
      expect(result.code).toBe(0);
      expect(markerIds(world)).toEqual(eligibleIds(world, firstSeen));
      expect(world.gh.counters().secondaryLimited).toBe(1);
    },
  );

  it.sequential(
    "a secondary limit on a reopen: the reopen happens once, with exactly one comment, and no verdict",
    async (t) => {
      const world = await worldFor(t);
      expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
      const issue = world.gh.issues(REPO)[0];
      if (!issue) throw new Error("no issue");
      const id = /<!-- threatbridge:threat=([0-9a-fA-F-]{36}) -->/.exec(issue.body ?? "")?.[1] ?? "";
      world.sim.sim.updateThreat(id, { status: "false_positive" });
      expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
      world.sim.sim.updateThreat(id, { status: "unsolved" });
      world.gh.faults.secondaryLimitNext("PATCH", "/repos/{owner}/{repo}/issues/{issue_number}", 1);
      expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
      const after = world.gh.issues(REPO).find((i) => i.number === issue.number);
      expect(after?.state).toBe("open");
      const reopenComments = world.gh
        .comments(REPO, issue.number)
        .filter((c) => c.body.includes("Reopened by threatbridge"));
      expect(reopenComments).toHaveLength(1);
      expect(world.sim.sim.getThreat(id)?.status).toBe("unsolved");
    },
  );

  it.sequential(
    "--max-duration stops writing when the budget's next slot is past it and leaves the rest queued, critical first",
    async (t) => {
      const world = await worldFor(t, { threats: 30 });
      const { readFile, writeFile } = await import("node:fs/promises");
      const yaml = await readFile(world.configPath, "utf8");
      await writeFile(world.configPath, yaml.replace("min_interval_ms: 0", "min_interval_ms: 400"));
      const result = await world.run(["sync", "-c", world.configPath, "--max-duration", "2", "--json"]);
      expect(result.code).toBe(0);
      const created = world.gh.issues(REPO).length;
      expect(created).toBeGreaterThan(0);
      const status = JSON.parse((await world.run(["status", "-c", world.configPath, "--json"])).stdout) as {
        queue: { total: number; by_action: Record<string, number> };
      };
      expect(status.queue.total).toBeGreaterThan(0);
      expect(status.queue.by_action["create"]).toBe(status.queue.total);
      // Severity order: no issue of a lower severity was created while a higher one waits.
      const rank = ["informational", "low", "medium", "high", "critical"];
      const createdIds = new Set(markerIds(world));
      const waiting = world.sim.sim.threatIds().filter((id) => {
        const t = world?.sim.sim.getThreat(id);
        return t && !createdIds.has(id) && (t.status === "unsolved" || t.status === "pending");
      });
      const lowestCreated = Math.min(
        ...[...createdIds].map((id) => rank.indexOf(world?.sim.sim.getThreat(id)?.severity ?? "")),
      );
      const highestWaiting = Math.max(
        ...waiting.map((id) => rank.indexOf(world?.sim.sim.getThreat(id)?.severity ?? "")),
      );
      expect(highestWaiting).toBeLessThanOrEqual(lowestCreated);
    },
  );
});

describe.concurrent("threatbridge config and usage errors (end to end)", () => {
  it.sequential(
    "a malformed config exits 2 naming the file, the line and the key, before any network call",
    async (t) => {
      const world = await worldFor(t);
      await world.writeConfig("schedule: 12\nfilters:\n  min_severty: high\n");
      const result = await world.cli(["sync", "-c", world.configPath]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(world.configPath);
      expect(result.stderr).toMatch(/:15: filters\.min_severty/);
      expect(result.stderr).toMatch(/did you mean .?min_severity/);
      expect(world.sim.sim.stats().requests ?? 0).toBe(0);
    },
  );

  it.sequential("config validate exits 0 on a good file and an unknown command exits 2", async (t) => {
    const world = await worldFor(t);
    expect((await world.cli(["config", "validate", "-c", world.configPath])).code).toBe(0);
    expect((await world.cli(["frobnicate"])).code).toBe(2);
    const schema = await world.cli(["config", "schema"]);
    expect(schema.code).toBe(0);
    expect(JSON.parse(schema.stdout)).toHaveProperty("properties.github");
  });
});
