import { describe, expect, it } from "vitest";
import { drainQueue, runCycle } from "../../src/sync/index.js";
import { Harness, threatId } from "./harness.js";

/**
 * Time per new issue within 2× the bare round trips (a POST, a PUT, one fsync): a new issue
 * costs one durable commit, its intent's. Its outcome is committed with the next commit, and a
 * crash before that is resolved by reading GitHub (the marker), never by creating again.
 */

const T1 = threatId(1);
const T2 = threatId(2);

function intentChanges(h: Harness, index: number) {
  return (h.commits[index]?.changes ?? []).filter((c) => c.collection === "intents");
}

describe("create: one commit per new issue (write-ahead rule kept)", () => {
  it("the commit that makes the next create's intent durable also carries the previous create's outcome", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    h.platform.put({ id: T2 });
    await h.settle();
    expect(h.issueFor(T1)).toHaveLength(1);
    expect(h.issueFor(T2)).toHaveLength(1);

    const starts = h.commits
      .map((_, i) => i)
      .filter((i) => intentChanges(h, i).some((c) => c.value !== undefined));
    expect(starts).toHaveLength(2);
    const second = h.commits[starts[1] ?? -1];
    // One commit: the first create's intent dropped and its issue recorded, the second's intent set.
    expect(intentChanges(h, starts[1] ?? -1).map((c) => c.value === undefined)).toEqual([true, false]);
    expect(second?.changes.some((c) => c.collection === "threats" && c.key === T1)).toBe(true);
    // No commit only settles a create: every commit between the two intents' is the second's.
    expect(starts[1]).toBe((starts[0] ?? 0) + 1);
  });

  it("a crash after the POST, before the outcome is committed: the restart finds the issue by its marker, no second issue", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    // Read the streams and queue the create, then crash at the next platform call: the link PUT
    // that follows the create, before it takes effect.
    await runCycle(h.ctx, { skipDrain: true });
    h.crashAt("platform", 1, false);
    await drainQueue(h.ctx, {}).catch(() => undefined);
    expect(h.issueFor(T1)).toHaveLength(1);

    h.restart();
    // The create's intent outlived the crash; recovery read GitHub and found its issue (recover.ts).
    expect(Object.values(h.ctx.state.intents).map((i) => i.kind)).toEqual(["create"]);
    const first = await h.cycle();
    expect(first.counters["intents_resolved_found"]).toBe(1);
    const report = await h.settle();
    expect(report.ok).toBe(true);
    expect(h.issueFor(T1)).toHaveLength(1);
    expect(h.ctx.state.threats.get(T1)?.issue?.number).toBe(h.issueFor(T1)[0]?.number);
    expect(h.ctx.state.threats.get(T1)?.link).toBeDefined();
    expect(Object.keys(h.ctx.state.intents)).toEqual([]);
  });
});
