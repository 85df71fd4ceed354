import { describe, expect, it } from "vitest";
import { counterOf } from "../../src/sync/event-observers.js";
import { ASSET, Harness, REPO, threatId } from "./harness.js";

const T1 = threatId(1);
const T2 = threatId(2);

describe("engine events (issue 7, item 3: one typed union; counters and audit are observers)", () => {
  it("a new threat emits `created` then `linked`, both naming its issue", async () => {
    const h = new Harness();
    h.platform.put({ id: T1, name: "Open admin panel", severity: "critical" });
    await h.settle();
    expect(h.events.map((e) => [e.type, e.threatId, e.issue])).toEqual([
      ["created", T1, { repo: REPO, number: 1 }],
      ["linked", T1, { repo: REPO, number: 1 }],
    ]);
  });

  it("the platform's close and reopen emit `closed`, `reopened` and the reopen's `commented`", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    await h.settle();
    h.events = [];
    h.platform.put({ id: T1, status: "solved" });
    await h.settle();
    h.platform.put({ id: T1, status: "unsolved" });
    await h.settle();
    expect(h.events.map((e) => e.type)).toEqual(["closed", "reopened", "commented"]);
  });

  it("a person's close emits `verdict_sent` naming the person's issue", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    await h.settle();
    h.events = [];
    h.github.personSets(REPO, 1, "closed", "alice");
    await h.settle();
    expect(h.events).toEqual([
      { type: "verdict_sent", threatId: T1, issue: { repo: REPO, number: 1 }, detail: "solved" },
    ]);
  });

  it("/metrics and `sync` counter names are derived from the events: the cycle report counts what was emitted", async () => {
    const h = new Harness();
    h.platform.put({ id: T1, asset_id: ASSET });
    h.platform.put({ id: T2, asset_id: ASSET });
    const report = await h.cycle();
    const expected: Record<string, number> = {};
    for (const e of h.events) expected[counterOf(e.type)] = (expected[counterOf(e.type)] ?? 0) + 1;
    expect(expected).toEqual({ issues_created: 2, platform_links: 2 });
    for (const [name, n] of Object.entries(expected)) expect(report.counters[name]).toBe(n);
  });
});
