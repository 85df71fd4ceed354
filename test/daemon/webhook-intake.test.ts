import { afterEach, describe, expect, it } from "vitest";
import type { DaemonEngine } from "../../src/daemon/index.js";
import {
  absorbIssueNow,
  drainQueue,
  managesIssue,
  runCycle,
  type EngineEvent,
} from "../../src/sync/index.js";
import { REPO, startDaemonWorld, until, type DaemonWorld, verdictsSent } from "./daemon-world.js";

/**
 * Contract, "GitHub webhooks (optional)": a close or reopen of a managed issue by a person reaches
 * the platform as its verdict within 5 s, without waiting for the schedule; polling stays the
 * source of truth. The daemon over the real engine, in this process; the webhook's hand-over
 * (`daemon.issueChanged`) is called as the receiver calls it.
 */

let world: DaemonWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** The real engine, watched: cycles, drains and webhook reads, and the most ever in progress at once. */
function watchedEngine(): DaemonEngine & { cycles: number; absorbed: number; maxBusy: number } {
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
    absorbed: 0,
    maxBusy: 0,
    runCycle(...args: Parameters<DaemonEngine["runCycle"]>) {
      engine.cycles += 1;
      return work(() => runCycle(...args));
    },
    drainQueue(...args: Parameters<DaemonEngine["drainQueue"]>) {
      return work(() => drainQueue(...args));
    },
    absorbIssueNow(...args: Parameters<DaemonEngine["absorbIssueNow"]>) {
      engine.absorbed += 1;
      return work(() => absorbIssueNow(...args));
    },
  };
  return engine;
}

describe("webhook intake in the daemon loop", () => {
  it("a person's close named by a webhook is sent as one verdict before any tick; the next poll sends no second one", async () => {
    world = await startDaemonWorld();
    const w = world;
    const verdicts = verdictsSent(w);
    const engine = watchedEngine();
    const daemon = w.daemon({ engine });
    const running = daemon.run();
    await until(
      () => w.gh.issues(REPO).length === w.eligible.length && Object.keys(w.ctx.state.queue).length === 0,
      "the first cycle's issues",
    );
    const issue = w.gh.issues(REPO).find((i) => i.state === "open");
    if (!issue) throw new Error("no open issue to close");
    const since = { ...w.ctx.state.github.since };

    const started = Date.now();
    w.gh.person.close(REPO, issue.number, { reason: "completed", login: "alice" });
    daemon.issueChanged(REPO, issue.number);
    await until(() => verdicts.length === 1, "the verdict", 5_000);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(engine.cycles).toBe(1);
    expect(engine.absorbed).toBe(1);
    // Polling stays the source of truth: reading one issue moves no watermark.
    expect(w.ctx.state.github.since).toEqual(since);
    const threatId = verdicts[0] ?? "";
    w.sim.sim.settle();
    expect(w.sim.sim.getThreat(threatId)?.status).toBe("solved");

    // The scheduled poll sees the same close: it is the verdict already sent, not a second one.
    w.scheduler.tick();
    await until(() => daemon.status().cycles.ok === 2, "the scheduled cycle");
    await until(() => Object.keys(w.ctx.state.queue).length === 0, "the queue to drain");
    daemon.stop();
    await running;
    expect(verdicts).toEqual([threatId]);
    // Cycles, drains and webhook reads never overlap: the loop is single.
    expect(engine.maxBusy).toBe(1);
  });

  it("a person's close of an issue whose threat is pending on the platform reaches it as its verdict (PATCH solved) within 5 s", async () => {
    world = await startDaemonWorld();
    const w = world;
    const verdicts: Array<{ threatId: string; detail: string | undefined }> = [];
    w.ctx.subscribe((event: EngineEvent) => {
      if (event.type === "verdict_sent") verdicts.push({ threatId: event.threatId, detail: event.detail });
    });
    const daemon = w.daemon();
    const running = daemon.run();
    await until(
      () => w.gh.issues(REPO).length === w.eligible.length && Object.keys(w.ctx.state.queue).length === 0,
      "the first cycle's issues",
    );
    const pending = w.eligible.find((id) => w.sim.sim.getThreat(id)?.status === "pending");
    if (pending === undefined) throw new Error("the world has no pending threat");
    const issue = w.ctx.state.threats.get(pending)?.issue;
    if (!issue) throw new Error("the pending threat has no issue");

    const started = Date.now();
    w.gh.person.close(REPO, issue.number, { reason: "completed", login: "alice" });
    daemon.issueChanged(REPO, issue.number);
    await until(() => verdicts.length === 1, "the verdict", 5_000);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(verdicts).toEqual([{ threatId: pending, detail: "solved" }]);
    daemon.stop();
    await running;
    // The issue stays as the person left it, whatever the platform answered.
    expect(w.gh.issues(REPO).find((i) => i.number === issue.number)?.state).toBe("closed");
  });

  it("a person's close reaches the platform within 5 s also while the drain waits on the write budget for its next GitHub write", async () => {
    // One write per 8 s: the second create waits for its slot, within one drain slice (10 s).
    world = await startDaemonWorld({ per_minute: 0, per_hour: 0, min_interval_ms: 8_000 });
    const w = world;
    const verdicts = verdictsSent(w);
    const daemon = w.daemon();
    const running = daemon.run();
    await until(() => w.gh.issues(REPO).length === 1, "the first issue");
    const issue = w.gh.issues(REPO)[0];
    if (!issue) throw new Error("no issue");
    // The drain is now waiting on the budget for the next create.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    w.gh.person.close(REPO, issue.number, { reason: "completed", login: "alice" });
    daemon.issueChanged(REPO, issue.number);
    await until(() => verdicts.length === 1, "the verdict", 10_000);
    const elapsed = Date.now() - started;
    daemon.stop();
    await running;
    expect(elapsed).toBeLessThan(5_000);
    // The create it waited for was deferred, not lost: still queued, and no second issue was made.
    expect(w.gh.issues(REPO).length).toBeLessThanOrEqual(2);
    expect(Object.keys(w.ctx.state.queue).length).toBeGreaterThan(0);
  });

  it("the same issue named twice before the loop reads it is read once", async () => {
    world = await startDaemonWorld();
    const w = world;
    const engine = watchedEngine();
    const daemon = w.daemon({ engine });
    const running = daemon.run();
    await until(() => daemon.status().cycles.ok === 1, "the first cycle");
    await until(() => Object.keys(w.ctx.state.queue).length === 0, "the queue to drain");
    const issue = w.gh.issues(REPO)[0];
    if (!issue) throw new Error("no issue");
    w.gh.person.close(REPO, issue.number, { reason: "not_planned", login: "bob" });
    daemon.issueChanged(REPO, issue.number);
    daemon.issueChanged(REPO.toUpperCase(), issue.number);
    await until(() => engine.absorbed >= 1 && Object.keys(w.ctx.state.queue).length === 0, "the verdict");
    daemon.stop();
    await running;
    expect(engine.absorbed).toBe(1);
  });

  it("manages only issues of watched repositories that carry a marker or that the state maps", async () => {
    world = await startDaemonWorld();
    const w = world;
    await runCycle(w.ctx, {});
    const issue = w.gh.issues(REPO)[0];
    if (!issue) throw new Error("no issue");
    // Mapped by the state, even with its marker stripped.
    expect(managesIssue(w.ctx, REPO, issue.number, null)).toBe(true);
    // GitHub's spelling of the repository may differ in case from the config's.
    expect(managesIssue(w.ctx, REPO.toUpperCase(), issue.number, null)).toBe(true);
    // A person's own issue: no marker, not mapped.
    expect(managesIssue(w.ctx, REPO, 9_999, null)).toBe(false);
    // A repository the connector does not watch, whatever its body says.
    expect(managesIssue(w.ctx, "someone/else", issue.number, "3f6c1f8e-2b7a-4c1e-9a57-0d4f2b9e8c11")).toBe(
      false,
    );
    // Reading an issue that is not there changes nothing.
    expect(await absorbIssueNow(w.ctx, REPO, 9_999)).toBe(false);
  });
});
