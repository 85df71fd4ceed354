import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openJournaledStore } from "../../src/state/index.js";
import { stateFromStore } from "../../src/sync/index.js";
import { eligibleIds, firstSeenStatuses, REPO, startWorld, type World } from "./world.js";

/**
 * Nothing is written when nothing changed, and migrations from today's state file work: a
 * version-1 state file written by the full-file store is converted on the first open, and the sync
 * after it creates no duplicate. The built CLI's main in this process, against the simulator and
 * the GitHub stand-in.
 */

const MARKER = /<!-- threatbridge:threat=([0-9a-fA-F-]{36}) -->/;

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("the journaled state (end to end)", () => {
  it("an idle sync (nothing changed) writes nothing: every state file stays byte-for-byte", async () => {
    world = await startWorld({ threats: 24 });
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    // The links the first sync wrote come back on the stream once the platform has applied them
    // (spec, external references rule 5: asynchronously); the second sync reads those echoes.
    world.sim.sim.settle();
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    world.sim.sim.settle();
    const before = await world.stateFiles();
    expect(before.size).toBeGreaterThan(0);
    const github = world.gh.counters();
    const idle = await world.run(["sync", "-c", world.configPath]);
    expect(idle.code).toBe(0);
    expect(await world.stateFiles()).toEqual(before);
    // A new process's GitHub reads are conditional too: the ETags kept in the state get 304s, free.
    expect(world.gh.counters().rateLimitPoints).toBe(github.rateLimitPoints);
    expect(world.gh.counters().notModified).toBeGreaterThan(github.notModified);
  }, 120_000);

  it("the first sync of a new state writes the snapshot at state.path (docs/operations.md: a snapshot there, a journal beside it)", async () => {
    world = await startWorld({ threats: 6 });
    expect(existsSync(world.statePath)).toBe(false);
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    expect(existsSync(world.statePath)).toBe(true);
    // The snapshot and its journal hold the state together: what the sync did is all there.
    const store = await openJournaledStore(world.statePath, { readOnly: true });
    const mapped = [...stateFromStore(store).threats.entries()].filter(([, t]) => t.issue !== undefined);
    await store.close();
    expect(mapped.length).toBe(world.gh.issues(REPO).length);
  }, 60_000);

  it("a version-1 state file is converted on the first sync (a .v1.bak copy is kept) and no issue is duplicated", async () => {
    world = await startWorld({ threats: 24 });
    const firstSeen = firstSeenStatuses(world);
    expect((await world.run(["sync", "-c", world.configPath])).code).toBe(0);
    const created = world.gh.issues(REPO).length;
    expect(created).toBeGreaterThan(0);
    // Today's (version-1) file of the same state: one JSON document, as the full-file store wrote it.
    const store = await openJournaledStore(world.statePath, { readOnly: true });
    const state = stateFromStore(store);
    await store.close();
    await world.loseState();
    await mkdir(dirname(world.statePath), { recursive: true });
    // As today's engine wrote every threat: with `position` and `gone` (dropped by the migration).
    const threats = Object.fromEntries(
      [...state.threats.entries()].map(([id, t]) => [id, { ...t, position: "1", gone: t.gone === true }]),
    );
    await writeFile(world.statePath, JSON.stringify({ ...state, threats }));
    // More work arrives; the next sync converts the file and goes on from it.
    const fresh = world.sim.sim.addThreat({ severity: "critical", status: "unsolved" });
    firstSeen.set(fresh.id, "unsolved");
    const next = await world.run(["sync", "-c", world.configPath]);
    expect(next.code).toBe(0);
    expect(existsSync(`${world.statePath}.v1.bak`)).toBe(true);
    const ids = world.gh
      .issues(REPO)
      .filter((i) => !i.isPullRequest)
      .map((i) => MARKER.exec(i.body ?? "")?.[1] ?? "")
      .sort();
    expect(ids).toEqual(eligibleIds(world, firstSeen)); // no duplicate, the new one created
    expect(ids.length).toBe(created + 1);
    const status = JSON.parse((await world.run(["status", "-c", world.configPath, "--json"])).stdout) as {
      queue: { total: number };
    };
    expect(status.queue.total).toBe(0);
  }, 120_000);
});
