import { existsSync, watch as watchDir } from "node:fs";
import { mkdir } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { describe, expect, it, type TestContext } from "vitest";
import { readStoredState } from "../../src/sync/records/stored-state.js";
import { eligibleIds, firstSeenStatuses, REPO, watch, worldFor, type World } from "./world.js";

/**
 * "A crash at any instant → no duplicate issue, no lost verdict, on restart": the built CLI is
 * killed with SIGKILL at many instants of a backfill, then run to completion.
 */

const MARKER = /<!-- threatbridge:threat=([0-9a-fA-F-]{36}) -->/;

/*
 * The tests run at the same time, each with its own world: much of each is its children's start-up
 * and paced writes, which the others' work fills.
 */

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A world of `threats` whose GitHub writes are paced, so that kills land inside the backfill. */
async function pacedWorld(t: TestContext, threats: number, seed: number): Promise<World> {
  const started = await worldFor(t, { threats, seed });
  const { readFile, writeFile } = await import("node:fs/promises");
  const yaml = await readFile(started.configPath, "utf8");
  await writeFile(started.configPath, yaml.replace("min_interval_ms: 0", "min_interval_ms: 15"));
  await mkdir(dirname(started.statePath), { recursive: true });
  return started;
}

/**
 * A `sync` killed with SIGKILL once `kills` says so of a file changed in the state's folder (or at
 * the end of the run); answers whether the watcher killed it.
 */
async function syncKilledWhen(w: World, kills: (name: string) => boolean): Promise<boolean> {
  const child = w.spawnCli(["sync", "-c", w.configPath]);
  let done = false;
  let killed = false;
  const exited = new Promise((r) => child.once("exit", () => r((done = true))));
  const watcher = watchDir(dirname(w.statePath), (_event, name) => {
    if (done || name === null || !kills(name)) return;
    killed = true;
    done = true;
    child.kill("SIGKILL");
  });
  await waitFor(() => done, 30_000);
  watcher.close();
  child.kill("SIGKILL");
  await exited;
  return killed;
}

/**
 * The sync that finishes the work (once more if the first meets what a kill left): its issues, one
 * per eligible threat. In this process: what the kills left is the point, not the finishing process.
 */
async function finishedIssues(w: World, firstSeen: Map<string, string>) {
  let final = await w.run(["sync", "-c", w.configPath]);
  if (final.code !== 0) final = await w.run(["sync", "-c", w.configPath]);
  expect(final.code).toBe(0);
  w.sim.sim.settle();
  const issues = w.gh.issues(REPO).filter((i) => !i.isPullRequest);
  const ids = issues.map((i) => MARKER.exec(i.body ?? "")?.[1] ?? "").sort();
  expect(ids).toEqual(eligibleIds(w, firstSeen)); // no duplicate, none missing
  return { issues, ids };
}

describe.concurrent("crash safety (end to end)", () => {
  it("SIGKILL at random instants of a backfill: exactly one issue per eligible threat, every one linked back", async (t) => {
    const world = await worldFor(t, { threats: 40, seed: 11 });
    await world.writeConfig("");
    // Pace the writes so that the kills land inside the backfill, between and during writes.
    const { writeFile, readFile } = await import("node:fs/promises");
    const yaml = await readFile(world.configPath, "utf8");
    await writeFile(world.configPath, yaml.replace("min_interval_ms: 0", "min_interval_ms: 15"));
    const firstSeen = firstSeenStatuses(world);
    const random = mulberry32(20261122);
    let killsMidWork = 0;
    for (let kill = 0; kill < 8; kill += 1) {
      const w = world;
      const writesBefore = w.gh.counters().writes;
      const platformBefore = w.sim.sim.stats().requests;
      const child = w.spawnCli(["sync", "-c", w.configPath]);
      let done = false;
      const exited = new Promise((r) => child.once("exit", () => r((done = true))));
      // Kill once the run is doing work: after a random number of GitHub writes (or, alternately,
      // platform requests), plus a random few milliseconds, so that kills land between and inside writes.
      const target = 1 + Math.floor(random() * 3);
      const onGitHub = kill % 2 === 0;
      await waitFor(
        () =>
          done ||
          (onGitHub
            ? w.gh.counters().writes - writesBefore >= target
            : w.sim.sim.stats().requests - platformBefore >= 4 + target),
        30_000,
      );
      await new Promise((r) => setTimeout(r, Math.floor(random() * 25)));
      if (!done) killsMidWork += 1;
      child.kill("SIGKILL");
      await exited;
    }
    expect(killsMidWork).toBeGreaterThanOrEqual(4);
    // A person also closes one issue between crashes: that verdict must not be lost either.
    const someIssue = world.gh.issues(REPO)[0];
    if (someIssue) world.gh.person.close(REPO, someIssue.number, { reason: "completed", login: "alice" });
    const { issues } = await finishedIssues(world, firstSeen);
    for (const issue of issues) {
      const id = MARKER.exec(issue.body ?? "")?.[1] ?? "";
      const ref = world.sim.sim.getThreat(id)?.external_references.find((r) => r.system === "github");
      expect(ref?.external_id).toBe(`${REPO}#${issue.number}`);
    }
    if (someIssue) {
      const id = MARKER.exec(someIssue.body ?? "")?.[1] ?? "";
      expect(["solved", "pending"]).toContain(world.sim.sim.getThreat(id)?.status);
    }
    const status = JSON.parse((await world.run(["status", "-c", world.configPath, "--json"])).stdout) as {
      intents: unknown[];
      queue: { total: number };
    };
    expect(status.intents).toEqual([]);
    expect(status.queue.total).toBe(0);
  }, 180_000);

  it("SIGKILL during a database commit (its write-ahead log being written): no duplicate issue, no lost verdict, no torn row", async (t) => {
    const world = await pacedWorld(t, 40, 13);
    const w = world;
    const firstSeen = firstSeenStatuses(w);
    const wal = `${basename(w.statePath).replace(/\.json$/, ".db")}-wal`;
    const random = mulberry32(20261202);
    const closedByPerson: number[] = [];
    let killsInCommit = 0;
    for (let kill = 0; kill < 8; kill += 1) {
      // A person closes an issue between crashes: its verdict is queued by a commit that may be killed.
      // One the state maps already (an issue whose create's answer a kill lost is adopted later).
      const mapped = new Set<number>();
      for (const [, t] of (await readStoredState(w.statePath))?.threats.entries() ?? [])
        if (t.issue) mapped.add(t.issue.number);
      const open = w.gh
        .issues(REPO)
        .filter(
          (i) =>
            !i.isPullRequest &&
            i.state === "open" &&
            !closedByPerson.includes(i.number) &&
            mapped.has(i.number),
        );
      const person = open[Math.floor(random() * open.length)];
      if (person) {
        w.gh.person.close(REPO, person.number, { reason: "completed", login: "alice" });
        closedByPerson.push(person.number);
      }
      // Killed as the n-th write to the database's log is seen: inside a commit, or just after one.
      let writes = 1 + Math.floor(random() * 6);
      if (await syncKilledWhen(w, (name) => name === wal && --writes <= 0)) killsInCommit += 1;
    }
    expect(killsInCommit).toBeGreaterThanOrEqual(4);
    const { issues, ids } = await finishedIssues(w, firstSeen);
    for (const number of closedByPerson) {
      const issue = issues.find((i) => i.number === number);
      const id = MARKER.exec(issue?.body ?? "")?.[1] ?? "";
      expect(["solved", "pending"]).toContain(w.sim.sim.getThreat(id)?.status); // no lost verdict
    }
    // No torn row: the database checks whole, and every stored row reads back as its schema says.
    const { sqlite } = await import("../../src/state/sqlite.js");
    const db = new (sqlite().DatabaseSync)(w.statePath.replace(/\.json$/, ".db"), { readOnly: true });
    expect(db.prepare("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    db.close();
    const state = await readStoredState(w.statePath);
    expect(state?.threats.size).toBeGreaterThanOrEqual(ids.length);
    expect(state?.intents).toEqual({});
  }, 180_000);

  it("SIGKILL while the saved cursors are written (after the commit of their rows): nothing lost, nothing duplicated", async (t) => {
    const world = await pacedWorld(t, 40, 12);
    const w = world;
    const firstSeen = firstSeenStatuses(w);
    const documentTemp = new RegExp(
      `^${basename(w.statePath).replace(/\./g, "\\.")}\\.\\d+\\.[0-9a-f]{12}\\.tmp$`,
    );
    let killsMidWrite = 0;
    for (let kill = 0; kill < 8; kill += 1) {
      // Killed the moment the document's temp file appears: after the rows' commit, before its rename.
      if (await syncKilledWhen(w, (name) => documentTemp.test(name))) killsMidWrite += 1;
    }
    expect(killsMidWrite).toBeGreaterThanOrEqual(2);
    const { issues } = await finishedIssues(w, firstSeen);
    for (const issue of issues) {
      const id = MARKER.exec(issue.body ?? "")?.[1] ?? "";
      const ref = w.sim.sim.getThreat(id)?.external_references.find((r) => r.system === "github");
      expect(ref?.external_id).toBe(`${REPO}#${issue.number}`);
    }
  }, 180_000);

  it("a second sync on the same state file exits 1 naming the holder; a lock left by SIGKILL does not block", async (t) => {
    const world = await worldFor(t, { threats: 30 });
    const { writeFile, readFile } = await import("node:fs/promises");
    const yaml = await readFile(world.configPath, "utf8");
    await writeFile(world.configPath, yaml.replace("min_interval_ms: 0", "min_interval_ms: 300"));
    const statePath = world.statePath;
    const first = watch(world.spawnCli(["sync", "-c", world.configPath]));
    await first.until(() => existsSync(`${statePath}.lock`), "the first sync to take the lock");
    const second = await world.cli(["sync", "-c", world.configPath]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(String(first.child.pid));
    expect((await first.stop("SIGKILL")).signal).toBe("SIGKILL");
    expect(existsSync(`${world.statePath}.lock`)).toBe(true); // left behind by the killed process
    await writeFile(world.configPath, yaml);
    const third = await world.cli(["sync", "-c", world.configPath]);
    expect(third.code).toBe(0);
  }, 120_000);
});
