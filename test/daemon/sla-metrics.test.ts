import { describe, expect, it } from "vitest";
import { metricsSources } from "../../src/daemon/index.js";
import { DAY_MS } from "../../src/shared/duration.js";
import { Harness, makeConfig, threatId } from "../sync/harness.js";

/**
 * Contract, "Workflow" → "SLA": when an open issue passes its due date, the next cycle adds the
 * breach label (one write), and `/metrics` gives the open issues breached and due within 7 days.
 * The cycle finds the due threats in the engine's index of the SLA's due times, built at its first
 * sweep (after a restart too) from the stored records, and the gauges read the SLA's own counts.
 */

const LABEL = "sla:breached";

describe("the SLA's clock and gauges", () => {
  it("an issue past its due date gets the breach label at the next cycle, also after a restart; the gauges count it breached", async () => {
    const h = new Harness(makeConfig({ sla: { high: "3d", breach_label: LABEL } }));
    h.platform.put({ id: threatId(1), severity: "high" });
    h.platform.put({ id: threatId(2), severity: "high" });
    await h.settle();
    // The platform's link write comes back on the stream once: read, nothing is due for it.
    await h.cycle();
    const sla = () => metricsSources(h.ctx).sla?.();
    expect(sla()).toEqual({ breached: 0, dueWithin7Days: 2 });
    expect(h.issues().every((i) => !i.labels.includes(LABEL))).toBe(true);

    // Four days on, in a new process: its first sweep reads the due times from the stored records.
    h.clockOffsetMs = 4 * DAY_MS;
    h.restart();
    expect(sla()).toEqual({ breached: 2, dueWithin7Days: 0 });
    // Nothing new on the stream and nothing queued: the clock alone makes the label due.
    expect(h.ctx.state.queue).toEqual({});
    const before = h.events.length;
    await h.settle();
    expect(h.events.slice(before).some((e) => e.type === "threat_due")).toBe(false);
    expect(h.issues().filter((i) => i.labels.includes(LABEL))).toHaveLength(2);
    // Labelled, still open and past its due date: still breached; nothing more to add.
    expect(sla()).toEqual({ breached: 2, dueWithin7Days: 0 });
    const labelWrites = h.events.filter((e) => e.type === "sla_breach_labeled").length;
    await h.cycle();
    expect(h.events.filter((e) => e.type === "sla_breach_labeled")).toHaveLength(labelWrites);
  });

  it("without `sla` configured the gauges read nothing (0 on /metrics)", async () => {
    const h = new Harness(makeConfig());
    h.platform.put({ id: threatId(1) });
    await h.settle();
    expect(metricsSources(h.ctx).sla?.()).toBeNull();
  });
});
