import { rm, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { status, sync, threatOf } from "./people-helpers.js";
import { issueToken, json, startTinyPlatform, useTinyPlatform, type TinyPlatform } from "./tiny-platform.js";
import { REPO, startWorld, type World } from "./world.js";

/**
 * `threatbridge retry` (contract, command table): work either side refused for good, listed by `status`
 * under `refused`, goes back in the queue, and the next cycle does it. The built CLI against the
 * simulator and the GitHub stand-in on 127.0.0.1.
 */

let world: World | undefined;
let platform: TinyPlatform | undefined;
afterEach(async () => {
  await platform?.close();
  await world?.close();
  platform = undefined;
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
    expect((await status(world)).refused?.find((r) => r.threat_id === fresh.id)?.reason).toMatch(/archived/);
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
      backlog: { total: 1, by_action: [["create", 1]], by_severity: [["critical", 1]] },
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

  it("contract, retry re-queues work either side refused for good: a link the platform answers 422 is recorded as refused, not sent again each cycle, and sent once after retry", async () => {
    world = await startWorld();
    const id = "5b3f8e2a-9c1d-4e7f-8a6b-2d4c6e8f0a1b";
    const threat = {
      id,
      status: "unsolved",
      updated_at: "2026-11-01T00:00:00Z",
      name: "Open port",
      severity: "high",
      external_references: [],
    };
    let refuse = true;
    platform = await startTinyPlatform((req, res) => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      if (path === "/oauth/token") return issueToken(res);
      if (path === "/v1/assets")
        return json(res, 200, { assets: [], pagination: { next_cursor: null, page_size: 0 } });
      if (path === "/v1/threats")
        return json(res, 200, { threats: [threat], pagination: { next_cursor: null, page_size: 1 } });
      if (path === `/v1/threats/${id}` && req.method === "GET")
        return json(res, 200, { ...threat, stream_position: null });
      if (req.method === "PUT" && refuse)
        return json(res, 422, {
          type: "http://x/errors/request/validation",
          status: 422,
          detail: "url must be https",
        });
      if (req.method === "PUT") return void res.writeHead(204).end();
      json(res, 404, { type: "http://x/errors/path/not-allowlisted", status: 404 });
    });
    await useTinyPlatform(world, platform.url);
    const puts = () => platform?.requests.filter((r) => r.method === "PUT").length ?? 0;

    expect(await sync(world)).toBe(0);
    expect(issuesOf(world, id)).toHaveLength(1);
    expect((await status(world)).refused).toEqual([
      expect.objectContaining({
        threat_id: id,
        action: "link",
        reason: expect.stringMatching(/422/) as unknown,
      }),
    ]);
    const sent = puts();
    expect(await sync(world)).toBe(0);
    expect(puts()).toBe(sent);

    refuse = false;
    expect((await retry(world, ["--threat", id])).code).toBe(0);
    expect(await sync(world)).toBe(0);
    expect(puts()).toBe(sent + 1);
    expect((await status(world)).refused).toEqual([]);
    expect(issuesOf(world, id)).toHaveLength(1);
  });
});
