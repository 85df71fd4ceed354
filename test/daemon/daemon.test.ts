import { readdir, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { DaemonEngine } from "../../src/daemon/index.js";
import { readStoredState } from "../../src/sync/records/stored-state.js";
import { absorbIssueNow, drainQueue, runCycle } from "../../src/sync/index.js";
import { gate, REPO, startDaemonWorld, until, type DaemonWorld } from "./daemon-world.js";

let world: DaemonWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** The real engine, watched: how many cycles ran, and the most that ever ran at once. */
function watchedEngine(hold?: Promise<void>): DaemonEngine & {
  cycles: number;
  maxConcurrent: number;
  drains: number;
  absorbed: number;
  maxBusy: number;
} {
  let running = 0;
  /** Cycles, drains and webhook reads in progress: the loop is single, so never more than one. */
  let busy = 0;
  async function work<T>(run: () => Promise<T>): Promise<T> {
    busy += 1;
    engine.maxBusy = Math.max(engine.maxBusy, busy);
    try {
      return await run();
    } finally {
      busy -= 1;
    }
  }
  const engine = {
    cycles: 0,
    maxConcurrent: 0,
    drains: 0,
    absorbed: 0,
    maxBusy: 0,
    async runCycle(...args: Parameters<DaemonEngine["runCycle"]>) {
      running += 1;
      engine.cycles += 1;
      engine.maxConcurrent = Math.max(engine.maxConcurrent, running);
      try {
        if (engine.cycles === 1 && hold) await hold;
        return await work(() => runCycle(...args));
      } finally {
        running -= 1;
      }
    },
    async drainQueue(...args: Parameters<DaemonEngine["drainQueue"]>) {
      engine.drains += 1;
      return work(() => drainQueue(...args));
    },
    async absorbIssueNow(...args: Parameters<DaemonEngine["absorbIssueNow"]>) {
      engine.absorbed += 1;
      return work(() => absorbIssueNow(...args));
    },
  };
  return engine;
}

describe("threatbridge run: the daemon loop", () => {
  it("runs a cycle at start; ticks that come while a cycle runs coalesce into one, never two cycles at once", async () => {
    world = await startDaemonWorld();
    const held = gate();
    const engine = watchedEngine(held.promise);
    const daemon = world.daemon({ engine });
    const running = daemon.run();
    await until(() => engine.cycles === 1, "the first cycle to start");
    for (let i = 0; i < 5; i += 1) world.scheduler.tick();
    held.open();
    await until(() => daemon.status().cycles.ok === 2, "the coalesced cycle");
    daemon.stop();
    await running;
    expect(engine.cycles).toBe(2);
    expect(engine.maxConcurrent).toBe(1);
    // The first tick made the poll due; the four after it merged into it, and /metrics counts them.
    expect(daemon.status().poll.skipped).toEqual({ retry_after: 0, busy: 4 });
    expect(world.gh.issues(REPO)).toHaveLength(world.eligible.length);
    expect(daemon.status().phase).toBe("stopped");
  });

  it("keeps draining between scheduled reads, paced by the write budget, without waiting for a tick", async () => {
    world = await startDaemonWorld({ per_minute: 0, per_hour: 0, min_interval_ms: 15 });
    const engine = watchedEngine();
    // Short drain slices: the loop comes back to the queue many times between two ticks.
    const daemon = world.daemon({ engine, drainSliceMs: 40 });
    const running = daemon.run();
    const w = world;
    await until(
      () => w.gh.issues(REPO).length === w.eligible.length && Object.keys(w.ctx.state.queue).length === 0,
      "the queue to drain",
    );
    daemon.stop();
    await running;
    expect(engine.cycles).toBe(1);
    expect(engine.drains).toBeGreaterThan(1);
    // Each issue was linked back, by the drain, not by a second cycle.
    world.sim.sim.settle();
    for (const id of world.eligible) {
      expect(world.sim.sim.getThreat(id)?.external_references.some((r) => r.system === "github")).toBe(true);
    }
  });

  it("a stop finishes the write in flight and saves the state: the file shows every issue made, the rest still queued", async () => {
    world = await startDaemonWorld({ per_minute: 0, per_hour: 0, min_interval_ms: 300 });
    const daemon = world.daemon();
    const running = daemon.run();
    const w = world;
    await until(() => w.gh.issues(REPO).length >= 2, "a few issues to be created");
    daemon.stop();
    await running;
    const saved = await readStoredState(world.statePath);
    if (!saved) throw new Error("no state file was saved");
    const made = world.gh
      .issues(REPO)
      .map((i) => i.number)
      .sort((a, b) => a - b);
    const mapped = [...saved.threats.values()]
      .flatMap((t) => (t.issue ? [t.issue.number] : []))
      .sort((a, b) => a - b);
    expect(mapped).toEqual(made);
    expect(Object.keys(saved.intents)).toEqual([]);
    expect(made.length).toBeLessThan(world.eligible.length);
    const queued = Object.keys(saved.queue).filter((id) => !saved.threats.get(id)?.issue);
    expect(queued.length + made.length).toBe(world.eligible.length);
  });

  it("a cycle that throws does not stop the daemon: the next tick runs a cycle", async () => {
    world = await startDaemonWorld();
    let calls = 0;
    const daemon = world.daemon({
      engine: {
        runCycle: async (ctx, opts) => {
          calls += 1;
          if (calls === 1) throw new Error("the platform is down");
          return runCycle(ctx, opts);
        },
      },
    });
    const running = daemon.run();
    await until(() => daemon.status().cycles.failed === 1, "the failed cycle");
    expect(daemon.status().phase).toBe("running");
    expect(daemon.status().lastCycle?.error).toBe("the platform is down");
    world.scheduler.tick();
    const w = world;
    await until(
      () => daemon.status().cycles.ok === 1 && w.gh.issues(REPO).length === w.eligible.length,
      "the cycle after the next tick and its work",
    );
    daemon.stop();
    await running;
    expect(daemon.status().cycles).toEqual({ ok: 1, failed: 1 });
  });

  it("an idle poll costs two platform reads and no GitHub rate-limit point (304s: the validators outlive the cycle), and writes no state", async () => {
    world = await startDaemonWorld();
    const w = world;
    const daemon = w.daemon();
    const running = daemon.run();
    await until(
      () => w.gh.issues(REPO).length === w.eligible.length && Object.keys(w.ctx.state.queue).length === 0,
      "the first cycle and its work",
    );
    // The next poll reads back the echo of the connector's own links; the ones after it are idle.
    w.sim.sim.settle();
    w.scheduler.tick();
    await until(() => daemon.status().cycles.ok === 2, "the poll that reads the echo");
    const files = async (): Promise<string[]> => {
      const dir = dirname(w.statePath);
      const names = (await readdir(dir)).filter((n) => !n.includes(".lock")).sort();
      return Promise.all(
        names.map(async (n) => {
          const s = await stat(join(dir, n));
          return `${n} ${s.size} ${s.mtimeMs}`;
        }),
      );
    };
    const before = { files: await files(), gh: w.gh.counters(), platform: w.sim.sim.stats() };
    for (const n of [3, 4, 5]) {
      w.scheduler.tick();
      await until(() => daemon.status().cycles.ok === n, `idle poll ${n}`);
    }
    const gh = w.gh.counters();
    const platform = w.sim.sim.stats();
    expect(gh.rateLimitPoints - before.gh.rateLimitPoints).toBe(0);
    expect(gh.notModified - before.gh.notModified).toBe(3);
    expect(gh.writes).toBe(before.gh.writes);
    expect(platform.requests - before.platform.requests).toBe(6);
    const reads = (stats: typeof platform, route: string): number => stats.byRoute[route] ?? 0;
    for (const route of ["GET /v1/threats", "GET /v1/assets"]) {
      expect(reads(platform, route) - reads(before.platform, route), route).toBe(3);
    }
    expect(await files()).toEqual(before.files);
    daemon.stop();
    await running;
  });

  it("stops at once when asked before the first cycle, and stops its schedule", async () => {
    world = await startDaemonWorld();
    const daemon = world.daemon();
    daemon.stop();
    await daemon.run();
    expect(world.scheduler.running).toBe(false);
    expect(daemon.status().cycles).toEqual({ ok: 0, failed: 0 });
  });
});
