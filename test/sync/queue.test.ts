import { describe, expect, it } from "vitest";
import { emptyState } from "../../src/state/index.js";
import { enqueue, orderedQueue, queueSummary } from "../../src/sync/queue.js";
import { createStateContext, putQueue } from "../../src/sync/state-updates.js";

describe("queue", () => {
  it("orders people's verdicts first, then closes and reopens, then new issues by severity (critical first), then the rest", () => {
    const c = createStateContext(emptyState(), { freeze: true });
    const s = c.state;
    enqueue(c, "update-crit", { priority: 3, severity: 4 }, "t");
    enqueue(c, "create-low", { priority: 2, severity: 1 }, "t");
    enqueue(c, "create-crit", { priority: 2, severity: 4 }, "t");
    enqueue(c, "close", { priority: 1, severity: 0 }, "t");
    enqueue(c, "verdict", { priority: 0, severity: 0 }, "t");
    enqueue(c, "create-crit-2", { priority: 2, severity: 4 }, "t");
    expect(orderedQueue(s, 0)).toEqual([
      "verdict",
      "close",
      "create-crit",
      "create-crit-2",
      "create-low",
      "update-crit",
    ]);
  });

  it("one entry per threat: a re-queue keeps the higher priority and clears a back-off", () => {
    const c = createStateContext(emptyState(), { freeze: true });
    const s = c.state;
    enqueue(c, "a", { priority: 2, severity: 1 }, "t");
    const entry = s.queue["a"];
    if (entry) putQueue(c, "a", { ...entry, notBefore: 10_000 });
    expect(orderedQueue(s, 0)).toEqual([]);
    enqueue(c, "a", { priority: 0, severity: 1 }, "t");
    expect(orderedQueue(s, 0)).toEqual(["a"]);
    expect(s.queue["a"]?.priority).toBe(0);
    expect(Object.keys(s.queue)).toHaveLength(1);
  });

  it("summarizes by action and severity for `status`", () => {
    const c = createStateContext(emptyState(), { freeze: true });
    const s = c.state;
    enqueue(c, "a", { priority: 2, severity: 4 }, "t");
    enqueue(c, "b", { priority: 2, severity: 3 }, "t");
    enqueue(c, "c", { priority: 0, severity: 3 }, "t");
    expect(queueSummary(s)).toMatchObject({
      total: 3,
      byAction: { create: 2, verdict: 1 },
      bySeverity: { critical: 1, high: 2 },
    });
  });
});
