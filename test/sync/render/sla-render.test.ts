import { describe, expect, it } from "vitest";
import { createRenderer } from "../../../src/sync/render/renderer.js";
import type { ThreatView } from "../../../src/sync/render/index.js";
import { makeConfig, REPO } from "../harness.js";
import { slaShown } from "../../../src/sync/features/sla/transitions.js";
import type { SlaRecord } from "../../../src/sync/features/sla/slice.js";

/**
 * Contract, "Workflow" → "SLA": the body shows `Due: YYYY-MM-DD`; templates get `sla.due`,
 * `sla.days_left`, `sla.breached`. The built-in rendering's hash holds the due day only, so no
 * issue is rewritten as days pass; a template that shows the clock pays one update a day.
 */

const route = { repo: REPO, labels: [], assignees: [] };
const SLA = { sla: { critical: "7d" } };
/** The threat's view with the SLA's part as the feature gives it at `nowMs` (none: no SLA). */
function view(at: { sla: SlaRecord; nowMs: number } | undefined): ThreatView {
  return {
    id: "00000000-0000-4000-8000-000000000001",
    title: "Exposed @admin panel #12",
    description: "d",
    severity: "critical",
    severityRank: 4,
    module: "m",
    status: "unsolved",
    ageDays: 3,
    assetId: null,
    moduleData: null,
    updatedAt: "2026-11-25T00:00:00Z",
    ...(at ? { features: { sla: slaShown(at.sla, at.nowMs) } } : {}),
  };
}
const SINCE = "2026-11-25T08:00:00.000Z";
const DUE = { since: SINCE, due: "2026-12-02T08:00:00.000Z" };
const today = { sla: DUE, nowMs: Date.parse("2026-11-25T10:00:00.000Z") };
const tomorrow = { sla: DUE, nowMs: Date.parse("2026-11-26T10:00:00.000Z") };
const past = { sla: DUE, nowMs: Date.parse("2026-12-03T10:00:00.000Z") };

describe("SLA rendering", () => {
  it("the built-in body shows the due day; its hash does not change as days pass or with the breach", () => {
    const renderer = createRenderer(makeConfig(SLA));
    const a = renderer.render(view(today), null, route);
    expect(a.issue.body).toContain("Due: 2026-12-02");
    expect(renderer.render(view(tomorrow), null, route).hash).toBe(a.hash);
    expect(renderer.render(view(past), null, route).hash).toBe(a.hash);
    // A new due day is new content.
    const later = { ...today, sla: { ...DUE, due: "2026-12-09T08:00:00.000Z" } };
    expect(renderer.render(view(later), null, route).hash).not.toBe(a.hash);
    expect(renderer.render(view(undefined), null, route).issue.body).not.toContain("Due:");
  });

  it("templates get sla.due, sla.days_left and sla.breached; naming the clock makes it content (one update a day)", () => {
    const body =
      "{{ threat.title }} due {{ sla.due }} in {{ sla.days_left }} days, breached: {{ sla.breached }}";
    const renderer = createRenderer(makeConfig({ ...SLA, templates: { body } }));
    const a = renderer.render(view(today), null, route);
    expect(a.issue.body).toContain("due 2026-12-02 in 7 days, breached: false");
    const b = renderer.render(view(past), null, route);
    expect(b.issue.body).toContain("in -1 days, breached: true");
    expect(b.hash).not.toBe(a.hash);
    const dueOnly = createRenderer(makeConfig({ ...SLA, templates: { body: "due {{ sla.due }}" } }));
    expect(dueOnly.render(view(today), null, route).hash).toBe(dueOnly.render(view(past), null, route).hash);
  });

  it("switching SLAs on (or changing a duration) changes the render key, so existing issues get their due dates; off, the key is unchanged", () => {
    const off = createRenderer(makeConfig()).key;
    expect(createRenderer(makeConfig(SLA)).key).not.toBe(off);
    expect(createRenderer(makeConfig({ sla: { critical: "8d" } })).key).not.toBe(
      createRenderer(makeConfig(SLA)).key,
    );
  });

  it("the SLA's start is a hidden line after the marker, built-in or templated, so that a lost state file can find it again", () => {
    const line = `<!-- threatbridge:sla-since=${SINCE} -->`;
    const builtIn = createRenderer(makeConfig(SLA)).render(view(today), null, route).issue.body;
    expect(builtIn.endsWith(line)).toBe(true);
    const templated = createRenderer(makeConfig({ ...SLA, templates: { body: "due {{ sla.due }}" } })).render(
      view(today),
      null,
      route,
    ).issue.body;
    expect(templated.endsWith(line)).toBe(true);
    expect(createRenderer(makeConfig(SLA)).render(view(undefined), null, route).issue.body).not.toContain(
      "sla-since",
    );
  });
});
