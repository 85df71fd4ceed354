import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import {
  createLogger,
  drainProgress,
  drainSeconds,
  limitsOnly,
  progressLine,
  progressTally,
  startTerminalProgress,
  type Ticker,
} from "../../src/observability/index.js";
import { terminalWriter } from "../../src/cli/terminal-writer.js";
import type { EngineEvent } from "../../src/sync/index.js";
import { startDaemonWorld, until, type DaemonWorld } from "../daemon/daemon-world.js";

/** Progress while working, from observers of the engine's events and the queue. */

const BUDGET = { perMinute: 80, perHour: 500, minIntervalMs: 1000 };
/** The ETA at the budget's limits with nothing spent yet. */
const eta = (writes: number): number | null => drainSeconds(writes, limitsOnly(BUDGET), 0);

/** A ticker the test fires by hand; it records the period asked for. */
function manualTicker(): Ticker & { fire(): void; periods: number[]; cancelled: boolean } {
  let fn: (() => void) | null = null;
  const t = {
    periods: [] as number[],
    cancelled: false,
    every(ms: number, f: () => void) {
      t.periods.push(ms);
      fn = f;
      return { cancel: () => void (t.cancelled = true) };
    },
    fire: () => fn?.(),
  };
  return t;
}

function jsonLines(): { stream: Writable; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const text of chunk.toString().split("\n").filter(Boolean)) {
        const value: unknown = JSON.parse(text);
        if (typeof value === "object" && value !== null) lines.push({ ...value });
      }
      done();
    },
  });
  return { stream, lines };
}

let world: DaemonWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("sync progress line (terminal)", () => {
  it("shows reading and writing apart: threats read and due, writes to GitHub and to the platform, and the ETA of what is queued at the budget", () => {
    const tally = progressTally();
    const issue = { repo: "acme/threats", number: 1 };
    for (let i = 0; i < 120; i += 1) tally.observe({ type: "threat_due", threatId: `due-${i}` });
    for (let i = 0; i < 30; i += 1) tally.observe({ type: "threat_unchanged", threatId: `same-${i}` });
    for (let i = 0; i < 40; i += 1) {
      tally.observe({ type: "created", threatId: `due-${i}`, issue });
      tally.observe({ type: "linked", threatId: `due-${i}`, issue });
      // Not writes: they move no count of the line.
      tally.observe({ type: "failed", threatId: `due-${i}`, detail: "x" });
    }
    tally.observe({ type: "stream_read", stream: "threats", items: 150 });
    const sample = tally.sample(80);
    expect(sample).toEqual({ read: 150, reading: false, due: 120, github: 40, platform: 40, queued: 80 });
    // One a second binds (80 fit in the minute's and the hour's windows): the 80th goes at 79 s.
    expect(progressLine(sample, eta, BUDGET)).toBe(
      "read: 150 threats, 120 due | writing: 40 to GitHub, 40 to the platform | 80 queued: about 1 min 19 s at 80/min, 500/h, 1 s apart",
    );
  });

  it("while the threat stream is still being read, the ETA is of what is queued so far, 'and more to read'", () => {
    const tally = progressTally();
    tally.observe({ type: "cycle_started", at: 0 });
    for (let i = 0; i < 1500; i += 1) tally.observe({ type: "threat_due", threatId: `due-${i}` });
    const sample = tally.sample(1206);
    expect(sample.reading).toBe(true);
    // 1,206 writes at 500 an hour: two hours and about three minutes, for what is known.
    expect(progressLine(sample, eta, BUDGET)).toBe(
      "reading: 1,500 threats so far, 1,500 due | writing: 0 to GitHub, 0 to the platform | 1,206 queued: about 2 h 3 min at 80/min, 500/h, 1 s apart, and more to read",
    );
    tally.observe({ type: "stream_read", stream: "threats", items: 5000 });
    // The reading done, no "more to read"; 4,000 at 500 an hour: the first 500 in 8 min, then 7 hours.
    expect(progressLine(tally.sample(4000), eta, BUDGET)).toBe(
      "read: 5,000 threats, 1,500 due | writing: 0 to GitHub, 0 to the platform | 4,000 queued: about 7 h 8 min at 80/min, 500/h, 1 s apart",
    );
  });

  it("counts threats read while the walk runs, takes the walk's total when it ends, and starts afresh each cycle", () => {
    const tally = progressTally();
    tally.observe({ type: "cycle_started", at: 0 });
    tally.observe({ type: "threat_redelivered", threatId: "a" });
    tally.observe({ type: "item_malformed", stream: "threats", id: null });
    tally.observe({ type: "item_malformed", stream: "assets", id: null });
    expect(tally.sample(0).read).toBe(2);
    tally.observe({ type: "stream_read", stream: "assets", items: 9 });
    expect(tally.sample(0).reading).toBe(true);
    tally.observe({ type: "stream_read", stream: "threats", items: 5 });
    expect(tally.sample(0)).toEqual({ read: 5, reading: false, due: 0, github: 0, platform: 0, queued: 0 });
    tally.observe({ type: "cycle_started", at: 1 });
    expect(tally.sample(3)).toEqual({ read: 0, reading: true, due: 0, github: 0, platform: 0, queued: 3 });
  });

  it("is refreshed at most once a second, redrawn in place, and cleared at the end", () => {
    const ticker = manualTicker();
    const written: string[] = [];
    let queued = 10;
    const progress = startTerminalProgress({
      sample: () => ({ read: 10, reading: false, due: 10, github: 10 - queued, platform: 0, queued }),
      eta,
      budget: BUDGET,
      display: terminalWriter({ write: (text: string) => written.push(text) }),
      ticker,
    });
    expect(ticker.periods).toEqual([1000]);
    expect(written).toEqual([]);
    ticker.fire();
    ticker.fire(); // nothing changed: nothing redrawn
    queued = 4;
    ticker.fire();
    progress.stop();
    expect(ticker.cancelled).toBe(true);
    expect(written).toEqual([
      "\r\u001b[2Kread: 10 threats, 10 due | writing: 0 to GitHub, 0 to the platform | 10 queued: about 9 s at 80/min, 500/h, 1 s apart",
      "\r\u001b[2Kread: 10 threats, 10 due | writing: 6 to GitHub, 0 to the platform | 4 queued: about 3 s at 80/min, 500/h, 1 s apart",
      "\r\u001b[2K",
    ]);
  });
});

describe("run: one progress line a minute while a backlog drains", () => {
  it("logs at info once per minute of a drain, never while nothing is queued; GitHub's writes are read against the budget, the platform's counted apart", () => {
    let now = 0;
    const { stream, lines } = jsonLines();
    const report = drainProgress({
      logger: createLogger({ destination: stream }),
      now: () => now,
      eta,
      budget: BUDGET,
    });
    // Each GitHub write brings a platform link: 2 writes a threat, one of them against the budget.
    const w = (n: number) => ({ github: n, platform: n });
    report(w(0), 100); // the backlog is first seen
    now = 30_000;
    report(w(20), 80);
    expect(lines).toHaveLength(0);
    now = 60_000;
    report(w(40), 60);
    now = 90_000;
    report(w(60), 40);
    now = 120_000;
    report(w(80), 20);
    now = 200_000;
    report(w(100), 0);
    now = 400_000;
    report(w(100), 0);
    expect(
      lines.map((l) => [
        l["level"],
        l["queued"],
        l["github_written_since_last"],
        l["platform_written_since_last"],
      ]),
    ).toEqual([
      ["info", 60, 40, 40],
      ["info", 20, 40, 40],
    ]);
    expect(String(lines[0]?.["msg"])).toBe(
      "progress: 60 queued: about 59 s at 80/min, 500/h, 1 s apart; in the last 1 min 40 written to GitHub (budget 80/min, 500/h, 1 s apart), 40 to the platform",
    );
  });

  it("the daemon logs them while it drains, by its own (injected) clock", async () => {
    world = await startDaemonWorld();
    const { stream, lines } = jsonLines();
    const ctx = world.ctx;
    let now = 1_700_000_000_000;
    // An in-memory engine: the cycle queues 10 entries; each drain slice takes 20 s and does one.
    const daemon = world.daemon({
      logger: createLogger({ destination: stream }),
      clock: { now: () => now },
      engine: {
        runCycle: async () => {
          for (let i = 0; i < 10; i += 1) ctx.state.queue[`t-${i}`] = { seq: i, enqueuedAt: "", attempts: 0 };
          const at = new Date(now).toISOString();
          return {
            ok: true,
            startedAt: at,
            finishedAt: at,
            drained: { done: 0, failed: 0, deferred: 0 },
            queue: { total: 10, byAction: {}, bySeverity: {}, failing: 0 },
            counters: {},
          };
        },
        drainQueue: async () => {
          const next = Object.keys(ctx.state.queue)[0];
          if (next === undefined) return { done: 0, failed: 0, deferred: 0 };
          delete ctx.state.queue[next];
          // Each entry is two writes (an issue and its link): the daemon counts them from the events.
          for (const type of ["created", "linked"] as const) {
            const event: EngineEvent = { type, threatId: next, issue: { repo: "acme/threats", number: 1 } };
            ctx.emit(event);
          }
          now += 20_000;
          return { done: 1, failed: 0, deferred: 0 };
        },
      },
    });
    const running = daemon.run();
    // The cycle first (it queues the backlog), then the backlog drained.
    await until(
      () => daemon.status().cycles.ok === 1 && Object.keys(ctx.state.queue).length === 0,
      "the backlog drained",
      10_000,
    );
    daemon.stop();
    await running;
    const progress = lines.filter((l) => String(l["msg"]).startsWith("progress:"));
    // 10 slices of 20 s: the backlog is seen at 20 s, lines at 80 s and 140 s (queued 6 and 3),
    // each after 3 entries of 2 writes (an issue on GitHub, its link on the platform).
    // Each entry is a GitHub write and a platform write, counted apart.
    expect(
      progress.map((l) => [
        l["level"],
        l["queued"],
        l["github_written_since_last"],
        l["platform_written_since_last"],
      ]),
    ).toEqual([
      ["info", 6, 3, 3],
      ["info", 3, 3, 3],
    ]);
  }, 20_000);
});
