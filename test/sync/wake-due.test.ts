import { describe, expect, it } from "vitest";
import { DAY_MS } from "../../src/shared/duration.js";
import { Harness, makeConfig, threatId } from "./harness.js";

/**
 * The queue's wake-up by the clock (run/wake-due.ts; contract, "Workflow" → "SLA": an open issue
 * past its due date gets the breach label at the next cycle). A process's first sweep of the SLA
 * reads the stored columns directly (a `sync` sweeps once: no index built for one look); later
 * sweeps of the same process read the index of due times, kept current from then on.
 */

const LABEL = "sla:breached";

describe("wake-up by the clock", () => {
  it("the first sweep of a process finds what is due without building the index; the next sweeps use the index and find what became due since", async () => {
    const h = new Harness(makeConfig({ sla: { high: "3d", low: "10d", breach_label: LABEL } }));
    h.platform.put({ id: threatId(1), severity: "high" });
    h.platform.put({ id: threatId(2), severity: "high" });
    h.platform.put({ id: threatId(3), severity: "low" });
    await h.settle();
    await h.cycle();
    const labelled = (): number => h.issues().filter((i) => i.labels.includes(LABEL)).length;
    expect(labelled()).toBe(0);

    // Four days on, in a new process: the high ones are past due, the low one is not.
    h.clockOffsetMs = 4 * DAY_MS;
    h.restart();
    const index = h.ctx.index;
    let built = 0;
    const dueTimes = index.dueTimes.bind(index);
    index.dueTimes = (feature, source) => {
      built += 1;
      return dueTimes(feature, source);
    };
    await h.settle();
    expect(built).toBe(0);
    expect(labelled()).toBe(2);

    // Seven more days in the same process: the index serves the sweep, and finds the low one.
    h.clockOffsetMs = 11 * DAY_MS;
    await h.settle();
    expect(built).toBeGreaterThan(0);
    expect(labelled()).toBe(3);
    // Nothing more is due: no more labels.
    const labels = h.events.filter((e) => e.type === "sla_breach_labeled").length;
    await h.cycle();
    expect(h.events.filter((e) => e.type === "sla_breach_labeled")).toHaveLength(labels);
  });

  it("reads no stored row and builds no index while nothing is due yet (the store's earliest open SLA due time), and finds what falls due once its time comes", async () => {
    const h = new Harness(makeConfig({ sla: { high: "3d", low: "10d", breach_label: LABEL } }));
    h.platform.put({ id: threatId(1), severity: "high" });
    h.platform.put({ id: threatId(2), severity: "low" });
    await h.settle();
    await h.cycle();
    const labelled = (): number => h.issues().filter((i) => i.labels.includes(LABEL)).length;
    // A day on, in a new process, then two in the same one: nothing is due, nothing is read.
    h.clockOffsetMs = 1 * DAY_MS;
    h.restart();
    const threats = h.ctx.state.threats;
    let scans = 0;
    const scanTimes = threats.scanTimes.bind(threats);
    threats.scanTimes = (feature, at, visit) => {
      scans += 1;
      scanTimes(feature, at, visit);
    };
    let built = 0;
    const dueTimes = h.ctx.index.dueTimes.bind(h.ctx.index);
    h.ctx.index.dueTimes = (feature, source) => {
      built += 1;
      return dueTimes(feature, source);
    };
    await h.settle();
    h.clockOffsetMs = 2 * DAY_MS;
    await h.cycle();
    await h.cycle();
    expect([scans, built, labelled()]).toEqual([0, 0, 0]);
    // Past the high one's due time: the sweep reads the columns and finds it, and only it.
    h.clockOffsetMs = 4 * DAY_MS;
    await h.settle();
    expect(scans).toBeGreaterThan(0);
    expect(labelled()).toBe(1);
  });
});
