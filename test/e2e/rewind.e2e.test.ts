import { rm, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { openStateStore } from "../../src/state/index.js";
import { get, HEALTH_ANY_PORT, REPO, worldFor, type World } from "./world.js";

/**
 * `threatbridge rewind` and a cursor the platform refuses (contract, command table; spec "Common
 * list behaviour" rule 5: a hand-built cursor answers 400 `request/invalid-cursor`). The built CLI
 * against the simulator and the GitHub stand-in on 127.0.0.1.
 */

/*
 * The two tests run at the same time, each with its own world: the first is mostly a `run` child's
 * one-second cycles, which the second's commands fill.
 */

const BOGUS = "eyJ2IjoxLCJlIjoidGhyZWF0cyIsInAiOjN9.another-installations-mac";
const THREATS_LIST = "GET /v1/threats";

/** A state restored from another installation: its threat cursor was never issued by this platform. */
async function plantBogusCursor(w: World): Promise<void> {
  const store = await openStateStore(w.statePath);
  try {
    const cursors = store.getMeta("cursors");
    store.setMeta("cursors", { ...(cursors as Record<string, string | null>), threats: BOGUS });
    await store.commit();
  } finally {
    await store.close();
  }
}

/** `rewind` as an operator runs it: no secret in the environment (it only touches the state). */
async function rewind(w: World, args: string[]) {
  const saved = { ...w.env };
  Object.assign(w.env, { PLATFORM_CLIENT_SECRET: "", GITHUB_TOKEN: "" });
  try {
    return await w.cli(["rewind", "-c", w.configPath, ...args]);
  } finally {
    Object.assign(w.env, saved);
  }
}

const listed = (w: World): number => w.sim.sim.stats().byRoute[THREATS_LIST] ?? 0;

describe.concurrent("a refused stream cursor, and threatbridge rewind", () => {
  it("run on a 1 s schedule sends the refused cursor once, says so once in the log, in /readyz and /metrics, keeps the GitHub side working; rewind --threats then sync reads from the start with zero GitHub writes", async (t) => {
    const world = await worldFor(
      t,
      { threats: 12 },
      `schedule: "* * * * * *"\n${HEALTH_ANY_PORT}log: { format: json }\n`,
    );
    const w = world;
    expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);
    const issues = w.gh.issues(REPO).length;
    expect(issues).toBeGreaterThan(0);
    await plantBogusCursor(w);

    const before = listed(w);
    const running = await w.startRun();
    const { base, until } = running;
    let ready = null as { status: number; text: string } | null;
    let metrics = "";
    let stderr = "";
    try {
      await until(
        async () => {
          ready = await get(`${base}/readyz`);
          return ready?.text.includes("stream is stopped") === true;
        },
        "/readyz to name the stopped stream",
        30_000,
      );
      // Cycles go on every second; the refused cursor is not sent again by any of them.
      const cycles = (text: string) =>
        Number(/^threatbridge_cycles_total\{outcome="ok"\} (\d+)$/m.exec(text)?.[1] ?? 0);
      await until(
        async () => {
          metrics = (await get(`${base}/metrics`))?.text ?? "";
          return cycles(metrics) >= 4;
        },
        "four cycles",
        30_000,
      );
      // A person's close still reaches the platform as a verdict: GitHub's side is not stopped.
      const first = w.gh.issues(REPO)[0];
      if (!first) throw new Error("no issue");
      const threatId = /threatbridge:threat=([0-9a-f-]{36})/.exec(first.body ?? "")?.[1] ?? "";
      w.gh.person.close(REPO, first.number, { login: "alice", reason: "completed" });
      await until(() => w.sim.sim.getThreat(threatId)?.status !== "unsolved", "the verdict", 20_000);
    } finally {
      stderr = (await running.stop()).stderr;
    }
    expect(listed(w) - before).toBe(1);
    expect(ready?.status).toBe(503);
    expect(JSON.parse(ready?.text ?? "{}")).toMatchObject({
      status: "not ready",
      streams_stopped: ["threats"],
      reason: expect.stringContaining("`threatbridge rewind --threats`"),
    });
    expect(metrics).toMatch(/^threatbridge_stream_cursor_refused\{stream="threats"\} 1$/m);
    expect(metrics).toMatch(/^threatbridge_stream_cursor_refused\{stream="assets"\} 0$/m);
    const said = stderr.split("\n").filter((l) => l.includes("the threats stream is stopped"));
    expect(said).toHaveLength(1);
    expect(JSON.parse(said[0] ?? "{}")).toMatchObject({ level: "error", stream: "threats" });
    expect(said[0]).toContain("request/invalid-cursor");

    // status (text and --json) shows it, with no secret in the environment.
    const status = await w.run(["status", "-c", w.configPath, "--json"]);
    expect(JSON.parse(status.stdout)).toMatchObject({
      cursors: { threats: BOGUS },
      streams_stopped: [{ stream: "threats", detail: expect.stringContaining("request/invalid-cursor") }],
    });
    expect((await w.run(["status", "-c", w.configPath])).stdout).toContain(
      "stopped:    the threats stream is stopped: the platform refused its saved cursor",
    );
    // sync says so too, and exits 1: the stream was not read.
    const stoppedSync = await w.run(["sync", "-c", w.configPath]);
    expect(stoppedSync.code).toBe(1);
    expect(stoppedSync.stdout).toContain("stopped: the threats stream is stopped");
    expect(listed(w) - before).toBe(1);

    // --dry-run says what it would forget and leaves every file of the state as it was.
    const files = await w.stateFiles();
    const dry = await rewind(w, ["--threats", "--dry-run"]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain("threats: would forget its saved cursor (refused by the platform at ");
    expect(dry.stdout).toContain("dry run: the state is unchanged");
    expect(await w.stateFiles()).toEqual(files);

    const done = await rewind(w, ["--threats"]);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain("threats: forgot its saved cursor");
    const writes = w.gh.counters().writes;
    const again = await w.run(["sync", "-c", w.configPath, "--json"]);
    expect(again.code, again.stderr).toBe(0);
    const report = JSON.parse(again.stdout) as {
      counters: Record<string, number>;
      streams_stopped?: unknown;
    };
    expect(report.streams_stopped).toBeUndefined();
    // Read from the beginning: every threat came back, and what the state held cost no GitHub write.
    expect(report.counters["threats_read"]).toBeGreaterThanOrEqual(issues);
    expect(w.gh.counters().writes).toBe(writes);
    expect(w.gh.issues(REPO)).toHaveLength(issues);
    const after = JSON.parse((await w.run(["status", "-c", w.configPath, "--json"])).stdout) as {
      cursors: { threats: string | null };
      streams_stopped: unknown[];
    };
    expect(after.streams_stopped).toEqual([]);
    expect(after.cursors.threats).not.toBe(BOGUS);
  }, 180_000);

  it("exit codes: none of the flags or --all with another → 2; the state lock held → 1 naming it; nothing to forget → 0", async (t) => {
    const world = await worldFor(t, { threats: 4 });
    const w = world;
    for (const args of [[], ["--all", "--threats"], ["--threat"]]) {
      const usage = await rewind(w, args);
      expect(usage.code, args.join(" ")).toBe(2);
      expect(usage.stderr).toContain("usage: threatbridge");
    }
    expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);
    await writeFile(
      `${w.statePath}.lock`,
      JSON.stringify({ pid: process.pid, hostname: hostname(), startedAt: new Date().toISOString() }),
    );
    const held = await rewind(w, ["--all"]);
    expect(held.code).toBe(1);
    expect(held.stderr).toContain(`in use by pid ${process.pid} on host ${hostname()}`);
    await rm(`${w.statePath}.lock`);
    // The streams were read to their end: their cursors are forgotten (a full re-read next cycle).
    const all = await rewind(w, ["--all"]);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toContain("assets: forgot its saved cursor");
    const none = await rewind(w, ["--all"]);
    expect(none.code).toBe(0);
    expect(none.stdout).toContain("nothing forgotten");
  }, 120_000);
});
