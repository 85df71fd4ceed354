import { rm, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { status, sync, threatOf } from "./people-helpers.js";
import { REPO, startWorld, type World } from "./world.js";

/**
 * `threatbridge retry` (contract, command table): work GitHub refused for good, listed by `status`
 * under `refused`, goes back in the queue, and the next cycle does it. The built CLI against the
 * simulator and the GitHub stand-in on 127.0.0.1.
 */

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const UNKNOWN = "00000000-0000-4000-8000-00000000beef";

/** `retry` as an operator runs it: no secret in the environment (it only touches the state). */
async function retry(w: World, args: string[]) {
  const saved = { ...w.env };
  Object.assign(w.env, { PLATFORM_CLIENT_SECRET: "", GITHUB_TOKEN: "" });
  try {
    return await w.cli(["retry", "-c", w.configPath, ...args]);
  } finally {
    Object.assign(w.env, saved);
  }
}

function issuesOf(w: World, threatId: string) {
  return w.gh.issues(REPO).filter((i) => threatOf(i.body) === threatId);
}

describe("threatbridge retry", () => {
  it("a create an archived repository refused is done by the first sync after the repository is unarchived and the threat re-queued, once", async () => {
    world = await startWorld({ threats: 8 });
    expect(await sync(world)).toBe(0);
    world.gh.person.archive(REPO);
    const fresh = world.sim.sim.addThreat({ severity: "critical", status: "unsolved" });
    expect(await sync(world)).toBe(0);
    expect((await status(world)).refused?.find((r) => r.threatId === fresh.id)?.reason).toMatch(/archived/);
    // The text report tells the operator the way out.
    expect((await world.run(["status", "-c", world.configPath])).stdout).toContain(
      "`threatbridge retry --all` once the cause is fixed",
    );
    expect(issuesOf(world, fresh.id)).toHaveLength(0);
    world.gh.person.unarchive(REPO);
    // Lifting the cause alone changes nothing: refused work is never retried on its own.
    expect(await sync(world)).toBe(0);
    expect(issuesOf(world, fresh.id)).toHaveLength(0);

    // --dry-run says what it would do and leaves every file of the state as it was.
    const before = await world.stateFiles();
    const dry = await retry(world, ["--all", "--dry-run"]);
    expect(dry.stderr).toBe("");
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`would re-queue threat ${fresh.id}: create, refused at `);
    expect(dry.stdout).toContain("would re-queue 1 threat (dry run: the state is unchanged)");
    expect(await world.stateFiles()).toEqual(before);

    // An id with no refused work is named and makes the exit 1; the threat named with it is re-queued.
    const done = await retry(world, ["--threat", fresh.id, "--threat", UNKNOWN]);
    expect(done.code).toBe(1);
    expect(done.stdout).toContain(`re-queued threat ${fresh.id}: create, refused at `);
    expect(done.stdout).toContain("re-queued 1 threat; the next cycle");
    expect(done.stderr).toContain(`threat ${UNKNOWN} is not in the state`);
    const queued = await world.cli(["status", "-c", world.configPath, "--json"]);
    expect(JSON.parse(queued.stdout)).toMatchObject({
      refused: [],
      backlog: { total: 1, byAction: [["create", 1]], bySeverity: [["critical", 1]] },
    });

    expect(await sync(world)).toBe(0);
    expect(issuesOf(world, fresh.id)).toHaveLength(1);
    // The platform applies external references asynchronously (spec, external references rule 5).
    world.sim.sim.settle();
    expect(world.sim.sim.getThreat(fresh.id)?.external_references).toEqual(
      expect.arrayContaining([expect.objectContaining({ system: "github" })]),
    );
    expect(await sync(world)).toBe(0);
    expect(issuesOf(world, fresh.id)).toHaveLength(1);
    // Nothing refused any more: --all finds nothing and says so.
    const none = await retry(world, ["--all"]);
    expect(none.code).toBe(0);
    expect(none.stdout).toContain("nothing refused: nothing to re-queue");
  }, 300_000);

  it("exit codes: another process holding the state lock → 1 naming it; neither or both of --threat and --all, or a bad config → 2", async () => {
    world = await startWorld({ threats: 4 });
    expect(await sync(world)).toBe(0);
    await writeFile(
      `${world.statePath}.lock`,
      JSON.stringify({ pid: process.pid, hostname: hostname(), startedAt: new Date().toISOString() }),
    );
    const held = await retry(world, ["--all"]);
    expect(held.code).toBe(1);
    expect(held.stderr).toContain(`in use by pid ${process.pid} on host ${hostname()}`);

    await rm(`${world.statePath}.lock`);
    // Only ids with nothing refused: each is named, with why, nothing is re-queued, exit 1.
    const mapped = threatOf(world.gh.issues(REPO)[0]?.body ?? null);
    const nothing = await retry(world, ["--threat", UNKNOWN, "--threat", mapped]);
    expect(nothing.code).toBe(1);
    expect(nothing.stdout).toBe("nothing re-queued\n");
    expect(nothing.stderr).toContain(`threat ${UNKNOWN} is not in the state`);
    expect(nothing.stderr).toContain(`threat ${mapped} has no refused work to retry`);

    for (const args of [[], ["--all", "--threat", UNKNOWN], ["--threat", ""]]) {
      const usage = await retry(world, args);
      expect(usage.code, args.join(" ")).toBe(2);
      expect(usage.stderr).toContain("usage: threatbridge");
    }
    const config = await world.cli(["retry", "-c", `${world.configPath}.missing`, "--all"]);
    expect(config.code).toBe(2);
    expect(config.stderr).toContain("cannot read the configuration file");
  }, 180_000);
});
