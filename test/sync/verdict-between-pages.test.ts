import { describe, expect, it } from "vitest";
import { absorbIssueNow, drainQueue, QueueClass, runCycle, type EngineEvent } from "../../src/sync/index.js";
import { Harness, REPO, threatId } from "./harness.js";

/**
 * `run` sends a verdict a webhook brought between two pages of a long read (CycleOptions
 * `betweenPages`: the issue read, then the one drain restricted to people's verdicts). The state
 * is committed there with the pages read so far and their cursor: a crash at any call of such a
 * read, on either side, before or after the call takes effect, gives no second issue and loses no
 * verdict after a restart.
 */

const T1 = threatId(1);
const BACKFILL = 13;

/** Two pages of three are read, then a person's close of T1's issue is named (a webhook). */
function backfillWithClose(h: Harness): () => Promise<void> {
  for (let n = 2; n <= BACKFILL; n += 1) h.platform.put({ id: threatId(n) });
  h.github.personSets(REPO, 1, "closed", "alice");
  let pages = 0;
  return async () => {
    pages += 1;
    if (pages !== 2) return;
    await absorbIssueNow(h.ctx, REPO, 1);
    await drainQueue(h.ctx, { only: "threat", upTo: QueueClass.verdict, deferPlatformPause: true });
  };
}

function expectNothingLostNorDoubled(h: Harness, where: string): void {
  for (let n = 1; n <= BACKFILL; n += 1)
    expect(h.issueFor(threatId(n)), `${where}: threat ${n}`).toHaveLength(1);
  expect(h.platform.threats.get(T1)?.status, where).not.toBe("unsolved");
  expect(h.issueFor(T1)[0]?.state, where).toBe("closed");
  expect(h.ctx.state.queue, where).toEqual({});
}

describe("a person's verdict between two pages of a long read", () => {
  it("goes out before the read ends; the rest of the read's work stays queued, recorded with the cursor", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    await h.settle();
    const order: string[] = [];
    h.ctx.subscribe((event: EngineEvent) => {
      if (event.type === "verdict_sent") order.push("verdict");
      if (event.type === "stream_read" && event.stream === "threats") order.push("read");
    });
    const report = await runCycle(h.ctx, { skipDrain: true, betweenPages: backfillWithClose(h) });
    expect(report.ok).toBe(true);
    expect(order).toEqual(["verdict", "read"]);
    // Only the verdict: the backfill's creates wait for the drain after the read, and so does the
    // rest of T1's own work (its entry stays, the person's change in it done).
    expect(h.issues()).toHaveLength(1);
    expect(Object.keys(h.ctx.state.queue)).toHaveLength(BACKFILL);
    expect(h.ctx.state.queue[T1]?.person).toBeUndefined();
    expect(h.platform.threats.get(T1)?.status).not.toBe("unsolved");
    await h.settle();
    expectNothingLostNorDoubled(h, "no crash");
  });

  it("a crash at any call of the read, on either side, before or after it takes effect: nothing lost, nothing doubled", async () => {
    for (const side of ["platform", "github"] as const) {
      for (let call = 1; call <= 10; call += 1) {
        for (const after of [false, true]) {
          const where = `crash at ${side} call ${call}, after=${after}`;
          const h = new Harness();
          h.platform.put({ id: T1 });
          await h.settle();
          const betweenPages = backfillWithClose(h);
          h.crashAt(side, call, after);
          await runCycle(h.ctx, { skipDrain: true, betweenPages }).catch(() => undefined);
          h.restart();
          await h.settle();
          expectNothingLostNorDoubled(h, where);
        }
      }
    }
  });

  it("a drain that meets the platform's pause puts the verdict back until it ends, no attempt counted, and goes on with GitHub's work", async () => {
    const T2 = threatId(2);
    const h = new Harness();
    h.platform.put({ id: T1 });
    h.platform.put({ id: T2 });
    await h.settle();
    // The platform solves T2 (its issue is to be closed), and a person closes T1's issue.
    h.platform.put({ id: T2, status: "solved" });
    await runCycle(h.ctx, { skipDrain: true });
    h.github.personSets(REPO, 1, "closed", "alice");
    await absorbIssueNow(h.ctx, REPO, 1);
    const now = (): number => h.ctx.clock.now();
    const until = now() + 60_000;
    h.platform.pause = { until, now };

    const result = await drainQueue(h.ctx, { deferPlatformPause: true });
    expect(result).toMatchObject({ failed: 0 });
    expect(h.issueFor(T2)[0]?.state).toBe("closed");
    const entry = h.ctx.state.queue[T1];
    expect(entry?.person).toBeDefined();
    expect(entry?.notBefore).toBe(until);
    expect(entry?.attempts ?? 0).toBe(0);
    expect(entry?.lastError).toBeUndefined();
    expect(h.platform.threats.get(T1)?.status).toBe("unsolved");

    // The pause over, the next drain sends it.
    h.clockOffsetMs += 60_000;
    await drainQueue(h.ctx, { deferPlatformPause: true });
    expect(h.platform.threats.get(T1)?.status).not.toBe("unsolved");
    expect(h.ctx.state.queue[T1]).toBeUndefined();
  });
});
