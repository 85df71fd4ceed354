import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readStoredState } from "../../src/sync/records/stored-state.js";
import { startWorld, type World } from "./world.js";

/** `sync` on a terminal shows progress, and an interrupted sync says so. */

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("sync progress and interruption", () => {
  it("shows a progress line while it works; interrupted, it says so and what stays queued, not 'cycle ok'", async () => {
    world = await startWorld();
    // A slow write budget, so that the sync is still writing when it is interrupted.
    const text = await readFile(world.configPath, "utf8");
    const config = join(world.dir, "slow.yaml");
    await writeFile(
      config,
      text.replace(
        "write_budget: { per_minute: 0, per_hour: 0, min_interval_ms: 0 }",
        "write_budget: { per_minute: 0, per_hour: 0, min_interval_ms: 250 }",
      ),
    );
    world.env["THREATBRIDGE_PROGRESS"] = "1";
    const child = world.spawnCli(["sync", "-c", config]);
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
    const progressed = new Promise<void>((resolve) => {
      child.stderr?.on("data", (d: Buffer) => {
        stderr += d.toString();
        if (/writing: [1-9]\d* to GitHub, \d+ to the platform \| [1-9][\d,]* queued/.test(stderr)) resolve();
      });
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const bound = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`no progress line:\n${stderr}`)), 30_000).unref(),
    );
    await Promise.race([progressed, bound]);
    child.kill("SIGINT");
    const code = await Promise.race([exited, bound]);
    // Reading and writing apart; the ETA of what is queued at the configured budget.
    expect(stderr).toMatch(
      /^(reading: \d+ threats so far|read: \d+ threats), \d+ due \| writing: \d+ to GitHub, \d+ to the platform \| \d+ queued: about \d+ s at 250 ms apart(, and more to read)?$/m,
    );
    expect(stdout).not.toContain("cycle ok");
    expect(stdout).toMatch(
      /^sync interrupted by SIGINT: the state is saved; \d+ done, [1-9]\d* stay queued \(create \d+\)/m,
    );
    expect(code).toBe(1);
    const state: unknown = await readStoredState(world.statePath);
    expect(state).toHaveProperty("queue");
  }, 60_000);

  it("a sync stopped by --max-duration says what stays queued and how long it takes at the budget, in one word ('queued', never 'deferred'); the dry run and status time it alike", async () => {
    world = await startWorld({ threats: 40 });
    const text = await readFile(world.configPath, "utf8");
    const config = join(world.dir, "budget.yaml");
    // 6 writes a minute: a sync of 1 s leaves nearly every create queued.
    await writeFile(
      config,
      text.replace(
        "write_budget: { per_minute: 0, per_hour: 0, min_interval_ms: 0 }",
        "write_budget: { per_minute: 6, per_hour: 0, min_interval_ms: 0 }",
      ),
    );
    // The word is explained where a user looks first.
    const help = await world.run(["sync", "--help"]);
    expect(help.stdout).toMatch(/^Queued: work waiting for github\.write_budget/m);
    const plan = await world.run(["sync", "-c", config, "--dry-run"]);
    const creates = /totals: create (\d+)/.exec(plan.stdout)?.[1];
    expect(creates).toBeDefined();
    const n = Number(creates);
    // Six go in the first minute, then six a minute: the last one ⌈n/6⌉ − 1 minutes from now.
    expect(plan.stdout).toContain(
      `time at the write budget: ${n} creates: about ${Math.ceil(n / 6) - 1} min at 6/min`,
    );
    const sync = await world.run(["sync", "-c", config, "--max-duration", "1"]);
    expect(sync.stdout).not.toContain("deferred");
    const queued =
      /; (\d+) queued: about (\d+) min at 6\/min \(the next `sync` or `run` carries them out\)$/m.exec(
        sync.stdout,
      );
    expect(queued, sync.stdout).not.toBeNull();
    const status = await world.run(["status", "-c", config]);
    expect(status.stdout).toMatch(
      new RegExp(`^backlog: +${queued?.[1]} queued: about \\d+ min at 6/min; 0 failing$`, "m"),
    );
  }, 60_000);
});
