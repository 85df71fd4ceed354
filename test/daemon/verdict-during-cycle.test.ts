import { afterEach, describe, expect, it } from "vitest";
import { RUN_RETRY_AFTER_WAIT_MS } from "../../src/daemon/index.js";
import type { PlatformClient } from "../../src/platform/index.js";
import type { Sleep } from "../../src/shared/clock.js";
import { readStoredState } from "../../src/sync/records/stored-state.js";
import type { EngineEvent } from "../../src/sync/index.js";
import {
  firstCycleDone,
  gate,
  REPO,
  startDaemonWorld,
  until,
  type DaemonWorld,
  verdictsSent,
} from "./daemon-world.js";

/**
 * Contract, "GitHub webhooks" and "Priorities": a person's close reaches the platform as its
 * verdict within 5 s, and a person's verdict is the first write, also while `run` is in the middle
 * of a long cycle (a backfill's many pages). The daemon over the real engine; the platform client
 * is wrapped at one named fault point: between two pages of the threat stream, where the test
 * holds the walk.
 */

let world: DaemonWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/**
 * A clock the test moves and the waits on it: a wait ends when the clock passes its end (or when
 * its signal aborts), so nothing in a test waits on a wall clock.
 */
function fakeTime(start = Date.parse("2026-11-28T12:00:00.000Z")): {
  clock: { now(): number };
  sleep: Sleep;
  advanceTo(at: number): void;
} {
  let now = start;
  const waits = new Set<{ at: number; wake: () => void }>();
  const sleep: Sleep = (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(new Error("aborted"));
        return;
      }
      const wait = {
        at: now + ms,
        wake: () => {
          waits.delete(wait);
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        waits.delete(wait);
        reject(new Error("aborted"));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      if (ms <= 0) wait.wake();
      else waits.add(wait);
    });
  return {
    clock: { now: () => now },
    sleep,
    advanceTo(at) {
      now = Math.max(now, at);
      for (const wait of [...waits]) if (wait.at <= now) wait.wake();
    },
  };
}

/** Holds the threat walk before it hands over page `n` (pages counted across walks from 1). */
interface PageHolds {
  wrap(client: PlatformClient): PlatformClient;
  /** The walk waits before handing over page `n` of the next walk until the hold is opened. */
  holdBefore(n: number): () => void;
  /** The page the walk is held before, or null. */
  heldAt(): number | null;
  /** Pages handed over by the walk in progress (or the last one). */
  served(): number;
  /** Runs `fault` when the walk asks for page `n` (before it is fetched). */
  beforeFetch(n: number, fault: () => void): void;
  /** The cursor to resume from after page `n` of the walk in progress (or the last one). */
  resumeAfter(n: number): string | null | undefined;
}

function pageHolds(): PageHolds {
  const holds = new Map<number, Promise<void>>();
  const faults = new Map<number, () => void>();
  let served = 0;
  let heldAt: number | null = null;
  let cursors: Array<string | null> = [];
  async function* held<T extends { resumeCursor: string | null }>(pages: AsyncIterable<T>): AsyncIterable<T> {
    served = 0;
    cursors = [];
    const it = pages[Symbol.asyncIterator]();
    for (;;) {
      faults.get(served + 1)?.();
      const next = await it.next();
      if (next.done === true) return;
      served += 1;
      cursors[served] = next.value.resumeCursor;
      const hold = holds.get(served);
      if (hold) {
        holds.delete(served);
        heldAt = served;
        await hold;
        heldAt = null;
      }
      yield next.value;
    }
  }
  return {
    wrap: (client) => ({
      ...client,
      streamThreats: (cursor, unchanged) => held(client.streamThreats(cursor, unchanged)),
    }),
    holdBefore(n) {
      const g = gate();
      holds.set(n, g.promise);
      return g.open;
    },
    heldAt: () => heldAt,
    served: () => served,
    resumeAfter: (n) => cursors[n],
    beforeFetch(n, fault) {
      faults.set(n, () => {
        faults.delete(n);
        fault();
      });
    },
  };
}

describe("a person's verdict during a long cycle of `run`", () => {
  it("a webhook's close delivered while a backfill's pages are read reaches the platform before the backfill ends", async () => {
    const holds = pageHolds();
    world = await startDaemonWorld(undefined, { pageLimit: 5, platform: holds.wrap });
    const w = world;
    const verdicts = verdictsSent(w);
    const daemon = w.daemon();
    const running = daemon.run();
    await firstCycleDone(w, daemon, "the first cycle's issues");
    // A backfill: 60 new threats, twelve pages and more of five.
    for (let i = 0; i < 60; i += 1) w.sim.sim.addThreat({ status: "unsolved" });
    const issue = w.gh.issues(REPO).find((i) => i.state === "open");
    if (!issue) throw new Error("no open issue to close");
    const openThird = holds.holdBefore(3);
    const openEighth = holds.holdBefore(8);
    w.scheduler.tick();
    await until(() => holds.heldAt() === 3, "the backfill's third page");

    w.gh.person.close(REPO, issue.number, { reason: "completed", login: "alice" });
    daemon.issueChanged(REPO, issue.number);
    openThird();
    await until(() => holds.heldAt() === 8, "the backfill's eighth page");
    // The backfill is still being read, and the verdict is on the platform already.
    expect(daemon.status().cycleRunning).toBe(true);
    expect(verdicts).toHaveLength(1);
    const threatId = verdicts[0] ?? "";
    w.sim.sim.settle();
    expect(w.sim.sim.getThreat(threatId)?.status).toBe("solved");

    openEighth();
    await until(() => daemon.status().cycles.ok === 2, "the backfill's end");
    await until(() => Object.keys(w.ctx.state.queue).length === 0, "the backfill's work");
    daemon.stop();
    await running;
    // One verdict, one issue per threat: the backfill's work was neither lost nor doubled.
    expect(verdicts).toEqual([threatId]);
    const numbers = w.gh.issues(REPO).map((i) => i.number);
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(w.gh.issues(REPO)).toHaveLength(w.eligible.length + 60);
  });

  it("a 429 with Retry-After 60 s in the middle of the read: GitHub's work goes on, the verdict is sent when the pause ends, the next poll not before, the cursor right", async () => {
    const time = fakeTime();
    const holds = pageHolds();
    world = await startDaemonWorld(undefined, {
      clock: time.clock,
      sleep: time.sleep,
      pageLimit: 5,
      maxRetryAfterMs: RUN_RETRY_AFTER_WAIT_MS,
      platform: holds.wrap,
    });
    const w = world;
    const verdicts: Array<{ threatId: string; at: number }> = [];
    const polls: number[] = [];
    const order: string[] = [];
    w.ctx.subscribe((event: EngineEvent) => {
      if (event.type === "verdict_sent") {
        verdicts.push({ threatId: event.threatId, at: time.clock.now() });
        order.push("verdict");
      }
      if (event.type === "cycle_started") {
        polls.push(event.at);
        order.push("poll");
      }
    });
    const daemon = w.daemon({ clock: time.clock, sleep: time.sleep });
    const running = daemon.run();
    await firstCycleDone(w, daemon, "the first cycle's issues");
    const issue = w.gh.issues(REPO).find((i) => i.state === "open");
    if (!issue) throw new Error("no open issue to close");
    for (let i = 0; i < 60; i += 1) w.sim.sim.addThreat({ status: "unsolved" });
    const before = w.gh.issues(REPO).length;

    // The fourth page of the next read is answered 429, Retry-After: 60.
    holds.beforeFetch(4, () => w.sim.sim.setFaults({ rate_429: 1, retry_after_seconds: 60 }));
    time.advanceTo(time.clock.now() + 15_000);
    const limitedAt = time.clock.now();
    const opensAt = limitedAt + 60_000;
    w.scheduler.tick();
    await until(() => daemon.status().cycles.ok === 2, "the poll that met the 429");
    w.sim.sim.setFaults({});
    // A partial cycle, not a failed one; the cursor is that of the last page read, in the saved
    // state too: a crash now resumes there.
    expect(daemon.status().cycles.failed).toBe(0);
    expect(holds.served()).toBe(3);
    expect(w.ctx.state.cursors.threats).toBe(holds.resumeAfter(3));
    expect((await readStoredState(w.statePath))?.cursors.threats).toBe(holds.resumeAfter(3));
    expect(w.ctx.platform.stats().notBefore).toBe(opensAt);

    // GitHub's work is not held by the platform's pause: the pages read get their issues now.
    await until(() => w.gh.issues(REPO).length > before, "issues made during the pause");
    expect(time.clock.now()).toBeLessThan(opensAt);

    // A person closes an issue; the webhook names it. The platform is not asked before the pause ends.
    const sent = w.sim.sim.stats().requests;
    w.gh.person.close(REPO, issue.number, { reason: "completed", login: "alice" });
    daemon.issueChanged(REPO, issue.number);
    await until(() => Object.values(w.ctx.state.queue).some((e) => e.person !== undefined), "the close read");
    // Ticks inside the window poll nothing.
    time.advanceTo(limitedAt + 30_000);
    w.scheduler.tick();
    await until(() => daemon.status().poll.skipped.retry_after === 1, "the tick inside the pause");
    expect(w.sim.sim.stats().requests).toBe(sent);
    expect(verdicts).toEqual([]);
    expect(polls).toHaveLength(2);

    // The pause ends: the verdict goes first, then the rest of the read, not before.
    time.advanceTo(opensAt);
    await until(() => daemon.status().cycles.ok === 3, "the poll that reads the rest");
    await until(() => Object.keys(w.ctx.state.queue).length === 0, "the rest of the work");
    daemon.stop();
    await running;
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0]?.at).toBe(opensAt);
    expect(polls).toHaveLength(3);
    expect(polls[2]).toBeGreaterThanOrEqual(opensAt);
    // People's verdicts first: it went before the poll that reads the rest, not after its reads.
    expect(order).toEqual(["poll", "poll", "verdict", "poll"]);
    w.sim.sim.settle();
    expect(w.sim.sim.getThreat(verdicts[0]?.threatId ?? "")?.status).toBe("solved");
    // Nothing lost, nothing doubled: one issue for each threat, the stream read to its end.
    const numbers = w.gh.issues(REPO).map((i) => i.number);
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(w.gh.issues(REPO)).toHaveLength(w.eligible.length + 60);
  });
  it("a verdict that meets Retry-After 60 s before a poll stays queued, that poll is dropped, the verdict goes when the pause ends and the next tick after it polls", async () => {
    const time = fakeTime();
    world = await startDaemonWorld(undefined, {
      clock: time.clock,
      sleep: time.sleep,
      maxRetryAfterMs: RUN_RETRY_AFTER_WAIT_MS,
    });
    const w = world;
    const verdicts: Array<{ threatId: string; at: number }> = [];
    const order: string[] = [];
    w.ctx.subscribe((event: EngineEvent) => {
      if (event.type === "verdict_sent") {
        verdicts.push({ threatId: event.threatId, at: time.clock.now() });
        order.push("verdict");
      }
      if (event.type === "cycle_started") order.push("poll");
    });
    const daemon = w.daemon({ clock: time.clock, sleep: time.sleep });
    const running = daemon.run();
    await firstCycleDone(w, daemon, "the first cycle's issues");
    const issue = w.gh.issues(REPO).find((i) => i.state === "open");
    if (!issue) throw new Error("no open issue to close");

    // A person closes an issue; its webhook and the next tick come together, so the verdict is sent
    // by the step before that tick's poll, and the platform answers it 429, Retry-After: 60.
    w.gh.person.close(REPO, issue.number, { reason: "completed", login: "alice" });
    w.sim.sim.setFaults({ rate_429: 1, retry_after_seconds: 60 });
    time.advanceTo(time.clock.now() + 15_000);
    const limitedAt = time.clock.now();
    const opensAt = limitedAt + 60_000;
    daemon.issueChanged(REPO, issue.number);
    w.scheduler.tick();
    await until(() => daemon.status().poll.skipped.retry_after === 1, "the poll dropped by the pause");
    w.sim.sim.setFaults({});
    expect(w.ctx.platform.stats().notBefore).toBe(opensAt);
    // Not lost: the person's change waits in the queue, and no poll started after the 429.
    const entry = Object.values(w.ctx.state.queue).find((e) => e.person !== undefined);
    expect(entry).toBeDefined();
    expect(verdicts).toEqual([]);
    expect(order).toEqual(["poll"]);
    expect(daemon.status().cycles.ok).toBe(1);

    // A tick inside the window asks the platform nothing.
    const sent = w.sim.sim.stats().requests;
    time.advanceTo(limitedAt + 30_000);
    w.scheduler.tick();
    await until(() => daemon.status().poll.skipped.retry_after === 2, "the tick inside the pause");
    expect(w.sim.sim.stats().requests).toBe(sent);

    // The pause ends: the verdict goes at once, the poll waits for the next tick.
    time.advanceTo(opensAt);
    await until(() => verdicts.length === 1, "the verdict after the pause");
    expect(verdicts[0]?.at).toBe(opensAt);
    expect(daemon.status().cycles.ok).toBe(1);
    time.advanceTo(opensAt + 15_000);
    w.scheduler.tick();
    await until(() => daemon.status().cycles.ok === 2, "the poll of the next tick");
    daemon.stop();
    await running;
    expect(order).toEqual(["poll", "verdict", "poll"]);
    w.sim.sim.settle();
    expect(w.sim.sim.getThreat(verdicts[0]?.threatId ?? "")?.status).toBe("solved");
    expect(Object.values(w.ctx.state.queue).filter((e) => e.person !== undefined)).toEqual([]);
  });
});
