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
        if (/written [1-9]\d*, queued [1-9]/.test(stderr)) resolve();
      });
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const bound = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`no progress line:\n${stderr}`)), 30_000).unref(),
    );
    await Promise.race([progressed, bound]);
    child.kill("SIGINT");
    const code = await Promise.race([exited, bound]);
    expect(stderr).toMatch(/^read \d+ threats, planned \d+, written \d+, queued \d+; ETA about \d+ s$/m);
    expect(stdout).not.toContain("cycle ok");
    expect(stdout).toMatch(
      /^sync interrupted by SIGINT: the state is saved; \d+ done, [1-9]\d* stay queued \(create \d+\)/m,
    );
    expect(code).toBe(1);
    const state: unknown = await readStoredState(world.statePath);
    expect(state).toHaveProperty("queue");
  }, 60_000);
});
