import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/observability/index.js";
import { Writable } from "node:stream";
import { eventBus, isWrite, type EngineEvent } from "../../src/shared/index.js";
import { personLogin } from "../../src/sync/actions/write-helpers.js";
import { auditObserver, cycleSummary } from "../../src/sync/event-observers.js";
import { dryRunReads } from "../../src/sync/run/dry-run.js";
import { ASSET, Harness, REPO, threatId } from "./harness.js";

const T1 = threatId(1);
const T2 = threatId(2);
const ISSUE = { repo: REPO, number: 7 };

function writes(events: EngineEvent[]): EngineEvent[] {
  return events.filter(isWrite);
}

describe("engine events (one typed union; logs, summary, metrics are observers)", () => {
  it("a new threat emits `created` then `linked`, both naming its issue", async () => {
    const h = new Harness();
    h.platform.put({ id: T1, name: "Open admin panel", severity: "critical" });
    await h.settle();
    expect(writes(h.events)).toEqual([
      { type: "created", threatId: T1, issue: { repo: REPO, number: 1 } },
      { type: "linked", threatId: T1, issue: { repo: REPO, number: 1 } },
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
    expect(writes(h.events).map((e) => e.type)).toEqual(["closed", "reopened", "commented"]);
  });

  it("a person's close emits `person_changed` when read, then `verdict_sent` naming the person's issue", async () => {
    const h = new Harness();
    h.platform.put({ id: T1 });
    await h.settle();
    h.events = [];
    h.github.personSets(REPO, 1, "closed", "alice");
    await h.settle();
    const issue = { repo: REPO, number: 1 };
    expect(h.events.filter((e) => e.type === "person_changed" || isWrite(e))).toEqual([
      { type: "person_changed", threatId: T1, issue, state: "closed" },
      { type: "verdict_sent", threatId: T1, issue, detail: "solved", answered: "solved", by: "alice" },
    ]);
  });

  it("reads are events too: a cycle starts, walks each stream, polls GitHub, and finishes", async () => {
    const h = new Harness();
    h.platform.put({ id: T1, asset_id: ASSET });
    await h.cycle();
    const types = h.events.map((e) => e.type);
    expect(types[0]).toBe("cycle_started");
    expect(types.at(-1)).toBe("cycle_finished");
    expect(h.events).toContainEqual({ type: "stream_read", stream: "assets", items: 1 });
    expect(h.events).toContainEqual({ type: "stream_read", stream: "threats", items: 1 });
    expect(h.events).toContainEqual({ type: "threat_due", threatId: T1 });
    expect(h.events.at(-1)).toMatchObject({ type: "cycle_finished", ok: true });
  });
});

describe("cycle summary observer (lastCycle.counts and `sync --json` counters keep their keys and values)", () => {
  it("events in, the summary's counter names out, in the order first counted", () => {
    const s = cycleSummary();
    const events: EngineEvent[] = [
      { type: "cycle_started", at: 0 },
      { type: "stream_read", stream: "assets", items: 0 },
      { type: "threat_due", threatId: T1 },
      { type: "threat_unchanged", threatId: T2 },
      { type: "item_malformed", stream: "threats", id: null },
      { type: "stream_read", stream: "threats", items: 3 },
      { type: "github_not_modified", repo: REPO },
      { type: "github_issues_read", repo: "acme/other", issues: 4 },
      { type: "duplicate_marker", threatId: T2, issue: ISSUE },
      { type: "person_changed", threatId: T2, issue: ISSUE, state: "open" },
      { type: "created", threatId: T1, issue: ISSUE },
      { type: "linked", threatId: T1, issue: ISSUE },
      { type: "closed", threatId: T2, issue: ISSUE },
      { type: "reopened", threatId: T2, issue: ISSUE },
      { type: "commented", threatId: T2, issue: ISSUE },
      {
        type: "verdict_sent",
        threatId: T2,
        issue: ISSUE,
        detail: "unsolved",
        answered: "unsolved",
        by: "bob",
      },
      { type: "intent_recovered", threatId: T1, intentId: "i1" },
      { type: "cycle_failed", error: "boom" },
      { type: "cycle_finished", ok: false, at: 5, durationMs: 5 },
    ];
    for (const e of events) s.observe(e);
    const counts = s.counts();
    expect(counts).toEqual({
      assets_read: 0,
      threats_due: 1,
      threats_unchanged: 1,
      malformed_threats: 1,
      threats_read: 3,
      github_not_modified: 1,
      github_issues_read: 4,
      duplicate_markers: 1,
      people_changes: 1,
      issues_created: 1,
      platform_links: 1,
      issues_state_changed: 2,
      comments_created: 1,
      platform_verdicts: 1,
      intents_recovered: 1,
      cycle_errors: 1,
    });
    // The JSON that `sync --json` and the state show: key order as first counted, a read of 0 kept.
    expect(Object.keys(counts).slice(0, 3)).toEqual(["assets_read", "threats_due", "threats_unchanged"]);
  });

  it("a real first cycle reports exactly the counters it always has (report and lastCycle.counts alike)", async () => {
    const h = new Harness();
    h.platform.put({ id: T1, asset_id: ASSET });
    h.platform.put({ id: T2, asset_id: ASSET, status: "solved" });
    const report = await h.cycle();
    const expected = {
      assets_read: 1,
      threats_due: 1,
      threats_unchanged: 1,
      threats_read: 2,
      github_issues_read: 0,
      issues_created: 1,
      platform_links: 1,
    };
    expect(report.counters).toEqual(expected);
    expect(Object.keys(report.counters)).toEqual(Object.keys(expected));
    expect(h.ctx.state.lastCycle?.counts).toEqual(expected);
  });

  it("counts only its own cycle: the next cycle's report starts from nothing", async () => {
    const h = new Harness();
    h.platform.put({ id: T1, asset_id: ASSET });
    await h.cycle();
    const second = await h.cycle();
    expect(second.counters["issues_created"]).toBeUndefined();
    expect(second.counters["threats_read"]).toBe(1);
  });
});

describe('audit observer (contract, "Logs": one info line per write with action, threat_id, issue)', () => {
  it("writes make one audit line each; reads and outcomes make none", () => {
    const lines: Array<Record<string, unknown>> = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const text of chunk.toString().split("\n").filter(Boolean)) {
          const value: unknown = JSON.parse(text);
          if (typeof value === "object" && value !== null) lines.push({ ...value });
        }
        done();
      },
    });
    const audit = auditObserver(createLogger({ destination: stream }));
    audit({ type: "threat_due", threatId: T1 });
    audit({ type: "failed", threatId: T1, detail: "boom" });
    audit({
      type: "verdict_sent",
      threatId: T1,
      issue: ISSUE,
      detail: "solved",
      answered: "solved",
      by: "alice",
    });
    audit({ type: "reopened", threatId: T1, issue: ISSUE });
    expect(lines.map((l) => [l["level"], l["action"], l["threat_id"], l["issue"]])).toEqual([
      ["info", "verdict", T1, `${REPO}#7`],
      ["info", "reopen", T1, `${REPO}#7`],
    ]);
  });

  it("a verdict's line carries `status` sent, `answered` and `by`; `by` is null where GitHub did not say who", () => {
    const lines: Array<Record<string, unknown>> = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const text of chunk.toString().split("\n").filter(Boolean)) {
          const value: unknown = JSON.parse(text);
          if (typeof value === "object" && value !== null) lines.push({ ...value });
        }
        done();
      },
    });
    const audit = auditObserver(createLogger({ destination: stream }));
    audit({
      type: "verdict_sent",
      threatId: T1,
      issue: ISSUE,
      detail: "solved",
      answered: "pending",
      by: "alice",
    });
    audit({
      type: "verdict_sent",
      threatId: T1,
      issue: ISSUE,
      detail: "unsolved",
      answered: "unsolved",
      by: null,
    });
    expect(lines.map((l) => [l["action"], l["status"], l["answered"], l["by"], l["msg"]])).toEqual([
      ["verdict", "solved", "pending", "alice", `verdict ${REPO}#7: solved sent, pending answered, by alice`],
      [
        "verdict",
        "unsolved",
        "unsolved",
        null,
        `verdict ${REPO}#7: unsolved sent, unsolved answered, by someone GitHub did not name`,
      ],
    ]);
    // A person's change GitHub named no one for is recorded as "unknown" (transitions/issue-seen.ts).
    expect(personLogin("unknown")).toBeNull();
    expect(personLogin("alice")).toBe("alice");
  });

  it('the SLA\'s writes: the breach label (`breach`), a milestone made (`milestone`, contract "Workflow"), an issue put into it (`update`)', () => {
    const lines: Array<Record<string, unknown>> = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const text of chunk.toString().split("\n").filter(Boolean)) {
          const value: unknown = JSON.parse(text);
          if (typeof value === "object" && value !== null) lines.push({ ...value });
        }
        done();
      },
    });
    const audit = auditObserver(createLogger({ destination: stream }));
    audit({ type: "sla_breach_labeled", threatId: T1, issue: ISSUE });
    audit({ type: "milestone_created", threatId: T1, issue: ISSUE, detail: "SLA 2026-12-06" });
    audit({ type: "milestone_set", threatId: T1, issue: ISSUE, detail: "SLA 2026-12-06" });
    expect(lines.map((l) => [l["audit"], l["action"], l["issue"], l["what"]])).toEqual([
      [true, "update", `${REPO}#7`, "sla breach label"],
      [true, "milestone", `${REPO}#7`, undefined],
      [true, "update", `${REPO}#7`, "sla milestone"],
    ]);
  });
});

describe('audit observer: the workflow writes (contract, "Workflow": accept, warn, expire, recur)', () => {
  it("a risk acceptance, its warning, its end and a recurrence are audit lines named by the contract; a refused typed date is one warning", () => {
    const lines: Array<Record<string, unknown>> = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const text of chunk.toString().split("\n").filter(Boolean)) {
          const value: unknown = JSON.parse(text);
          if (typeof value === "object" && value !== null) lines.push({ ...value });
        }
        done();
      },
    });
    const audit = auditObserver(createLogger({ destination: stream }));
    audit({
      type: "acceptance_date_ignored",
      threatId: T1,
      issue: ISSUE,
      detail: "2030-01-01 is later than acceptance.max allows",
    });
    audit({ type: "risk_accepted", threatId: T1, issue: ISSUE, detail: "2026-04-10" });
    audit({ type: "expiry_warned", threatId: T1, issue: ISSUE });
    audit({ type: "risk_expired", threatId: T1, issue: ISSUE });
    audit({ type: "recurred", threatId: T1, issue: { repo: REPO, number: 9 }, detail: `${REPO}#7` });
    expect(lines.map((l) => [l["level"], l["action"], l["issue"]])).toEqual([
      ["warn", undefined, `${REPO}#7`],
      ["info", "accept", `${REPO}#7`],
      ["info", "warn", `${REPO}#7`],
      ["info", "expire", `${REPO}#7`],
      ["info", "recur", `${REPO}#9`],
    ]);
    expect(lines[0]?.["reason"]).toContain("later than acceptance.max");
  });
});

describe("dry-run reads observer (the plan's header)", () => {
  it("tallies streams read, GitHub issues read and people's changes from events", () => {
    const reads = dryRunReads();
    reads.observe({ type: "stream_read", stream: "assets", items: 2 });
    reads.observe({ type: "stream_read", stream: "threats", items: 5 });
    reads.observe({ type: "github_issues_read", repo: REPO, issues: 3 });
    reads.observe({ type: "github_not_modified", repo: "acme/other" });
    reads.observe({ type: "person_changed", threatId: T1, issue: ISSUE, state: "closed" });
    reads.observe({ type: "created", threatId: T2, issue: ISSUE });
    expect(reads.read()).toEqual({ assets: 2, threats: 5, githubIssues: 3, peopleChanges: 1 });
  });
});

describe("event bus", () => {
  it("an observer that throws is reported and does not stop the others (a landed write must not fail its step)", () => {
    const errors: string[] = [];
    const seen: string[] = [];
    const bus = eventBus(
      [
        () => {
          throw new Error("observer broke");
        },
      ],
      (error, event) => errors.push(`${event.type}: ${String(error)}`),
    );
    const stop = bus.subscribe((e) => seen.push(e.type));
    bus.emit({ type: "created", threatId: T1, issue: ISSUE });
    stop();
    bus.emit({ type: "linked", threatId: T1, issue: ISSUE });
    expect(seen).toEqual(["created"]);
    expect(errors).toEqual(["created: Error: observer broke", "linked: Error: observer broke"]);
  });

  it("an observer subscribed twice is removed one subscription at a time", () => {
    const seen: string[] = [];
    const bus = eventBus([], () => undefined);
    const observer = (e: EngineEvent): void => void seen.push(e.type);
    const first = bus.subscribe(observer);
    bus.subscribe(observer);
    first();
    bus.emit({ type: "threat_due", threatId: T1 });
    expect(seen).toEqual(["threat_due"]);
  });
});
