import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LEASE_MS } from "../../src/state/index.js";
import { startWorld, type World } from "../e2e/world.js";

/**
 * Contract, "Command line": a lock left by a holder on another host (a rescheduled container on a
 * shared volume) stops blocking within 60 s of its last sign of life. Through the built CLI: a
 * lock whose lease is fresh blocks `sync` (exit 1, naming the holder); one whose lease ran out is
 * taken over and the cycle runs.
 */

let world: World;
beforeAll(async () => {
  world = await startWorld({ threats: 4, assets: 2 });
});
afterAll(async () => {
  await world.close();
});

async function lockFromOtherHost(renewedAgoMs: number): Promise<void> {
  await mkdir(dirname(world.statePath), { recursive: true });
  const lock = {
    pid: 1,
    hostname: "pod-on-a-lost-node",
    startedAt: new Date(Date.now() - 3_600_000).toISOString(),
    renewedAt: new Date(Date.now() - renewedAgoMs).toISOString(),
    procStart: "1",
  };
  await writeFile(`${world.statePath}.lock`, `${JSON.stringify(lock)}\n`, { mode: 0o600 });
}

describe("sync and a lock from another host", () => {
  it("a fresh lease blocks: exit 1, naming the holder and when its lease was renewed", async () => {
    await lockFromOtherHost(2_000);
    const r = await world.cli(["sync", "-c", world.configPath]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("pid 1 on host pod-on-a-lost-node");
    expect(r.stderr).toContain("last renewed its lease at");
  });

  it("a lease that ran out (holder stopped renewing) is taken over: the cycle runs, exit 0", async () => {
    await lockFromOtherHost(LEASE_MS + 5_000);
    const r = await world.cli(["sync", "-c", world.configPath]);
    expect(r.code, r.stderr).toBe(0);
    expect(world.gh.issues("acme/security-threats").length).toBeGreaterThan(0);
  });
});
