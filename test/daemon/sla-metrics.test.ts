import { describe, expect, it } from "vitest";
import { metricsSources } from "../../src/daemon/index.js";
import { createMetrics } from "../../src/observability/metrics.js";
import { DAY_MS } from "../../src/shared/duration.js";
import { Harness, makeConfig, threatId } from "../sync/harness.js";

/**
 * Contract, "Workflow" → "SLA": when an open issue passes its due date, the next cycle adds the
 * breach label (one write), and `/metrics` gives the open issues breached and due within 7 days.
 * The cycle finds the due threats in the engine's index of the SLA's due times, built at its first
 * sweep (after a restart too) from the stored records, and the gauges read the SLA's own counts.
 */

const LABEL = "sla:breached";

/** The value of each metric of `/metrics` as the engine's sources give it, by its series line. */
async function scraped(h: Harness): Promise<Map<string, number>> {
  const text = (await createMetrics({ sources: metricsSources(h.ctx) }).render()).body;
  const values = new Map<string, number>();
  for (const line of text.split("\n"))
    if (line !== "" && !line.startsWith("#"))
      values.set(line.slice(0, line.lastIndexOf(" ")), Number(line.slice(line.lastIndexOf(" ") + 1)));
  return values;
}

const FEATURE_GAUGES = [
  "threatbridge_sla_breached_issues",
  "threatbridge_sla_due_soon_issues",
  "threatbridge_risk_acceptances",
  "threatbridge_risk_acceptances_ending_soon",
];

describe("the SLA's clock and gauges", () => {
  it("an issue past its due date gets the breach label at the next cycle, also after a restart; the gauges count it breached", async () => {
    const h = new Harness(makeConfig({ sla: { high: "3d", breach_label: LABEL } }));
    h.platform.put({ id: threatId(1), severity: "high" });
    h.platform.put({ id: threatId(2), severity: "high" });
    await h.settle();
    // The platform's link write comes back on the stream once: read, nothing is due for it.
    await h.cycle();
    const sla = async () => {
      const values = await scraped(h);
      return {
        breached: values.get("threatbridge_sla_breached_issues"),
        dueWithin7Days: values.get("threatbridge_sla_due_soon_issues"),
      };
    };
    expect(await sla()).toEqual({ breached: 0, dueWithin7Days: 2 });
    expect(h.issues().every((i) => !i.labels.includes(LABEL))).toBe(true);

    // Four days on, in a new process: its first sweep reads the due times from the stored records.
    h.clockOffsetMs = 4 * DAY_MS;
    h.restart();
    expect(await sla()).toEqual({ breached: 2, dueWithin7Days: 0 });
    // Nothing new on the stream and nothing queued: the clock alone makes the label due.
    expect(h.ctx.state.queue).toEqual({});
    const before = h.events.length;
    await h.settle();
    expect(h.events.slice(before).some((e) => e.type === "threat_due")).toBe(false);
    expect(h.issues().filter((i) => i.labels.includes(LABEL))).toHaveLength(2);
    // Labelled, still open and past its due date: still breached; nothing more to add.
    expect(await sla()).toEqual({ breached: 2, dueWithin7Days: 0 });
    const labelWrites = h.events.filter((e) => e.type === "sla_breach_labeled").length;
    await h.cycle();
    expect(h.events.filter((e) => e.type === "sla_breach_labeled")).toHaveLength(labelWrites);
  });

  it("without `sla` or `acceptance` configured their gauges are still on /metrics, named as the contract names them, at 0", async () => {
    const h = new Harness(makeConfig());
    h.platform.put({ id: threatId(1) });
    await h.settle();
    const values = await scraped(h);
    expect(FEATURE_GAUGES.map((name) => [name, values.get(name)])).toEqual(
      FEATURE_GAUGES.map((name) => [name, 0]),
    );
  });

  it("with `acceptance` configured, its gauges read the acceptance's status counts (none held: 0)", async () => {
    const h = new Harness(makeConfig({ acceptance: {} }));
    h.platform.put({ id: threatId(1) });
    await h.settle();
    const values = await scraped(h);
    expect(values.get("threatbridge_risk_acceptances")).toBe(0);
    expect(values.get("threatbridge_risk_acceptances_ending_soon")).toBe(0);
  });
});
