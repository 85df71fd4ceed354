import fc from "fast-check";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStateStore } from "../../src/state/index.js";
import { emptyState, type PersonChange, type ThreatRecord } from "../../src/sync/schema.js";
import { priorityOf } from "../../src/sync/actions/index.js";
import { decidersFor, statusSeen } from "../../src/sync/features/registry.js";
import { stateFromStore } from "../../src/sync/index.js";
import { gone, present } from "../../src/sync/plan/known.js";
import { issueStateStep, plan } from "../../src/sync/plan/plan.js";
import { policyFromConfig } from "../../src/sync/plan/policy.js";
import { enqueue } from "../../src/sync/records/queue.js";
import { dueClass, dueWork, orderedQueue, queueSummary } from "../../src/sync/plan/queue-order.js";
import type { QueueClass } from "../../src/sync/plan/queue-class.js";
import { createStateContext, putQueue, putThreat } from "../../src/sync/records/state-updates.js";
import { ThreatIndex } from "../../src/sync/records/threat-index.js";
import { ThreatRecordsView } from "../../src/sync/records/threat-records.js";
import { makeConfig, REPO } from "./harness.js";
import { featured, type Spelled } from "./feature-fields.js";

/**
 * The queue derived from the state: the state stores per threat only what cannot
 * be derived; "what is due, in what order" is a function of the entries and the threats' records.
 */

const ISSUE = { repo: REPO, number: 7, url: "https://github.test/acme/threats/issues/7", hash: "h1" };
const person: PersonChange = {
  event: "closed",
  reason: "completed",
  login: "alice",
  repo: REPO,
  number: 7,
  url: ISSUE.url,
  seenAt: "now",
};

function world() {
  return { ...createStateContext(emptyState(), { freeze: true }), index: new ThreatIndex() };
}

function record(severity: number, extra: Partial<Spelled> = {}): ThreatRecord {
  return featured({ status: "unsolved", severity, assetId: null, updatedAt: "u", ...extra });
}

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("queue derived from the state", () => {
  it("contract priorities: people's verdicts first, then closes and reopens, then new issues by severity (critical first), then the rest; ties by age", () => {
    const c = world();
    const open = { ...ISSUE, state: "open" as const };
    const linked = { link: `${REPO}#7` };
    putThreat(c, "update-crit", record(4, { issue: open, ...linked }));
    putThreat(c, "create-low", record(1));
    putThreat(c, "create-crit", record(4));
    putThreat(c, "close", record(0, { status: "solved", issue: open }));
    putThreat(c, "verdict", record(0, { issue: open }));
    putThreat(c, "create-crit-2", record(4));
    enqueue(c, "update-crit", {}, "t");
    enqueue(c, "create-low", {}, "t");
    enqueue(c, "create-crit", {}, "t");
    enqueue(c, "close", {}, "t");
    enqueue(c, "verdict", { person }, "t");
    enqueue(c, "create-crit-2", {}, "t");
    expect(orderedQueue(c.state, 0)).toEqual([
      "verdict",
      "close",
      "create-crit",
      "create-crit-2",
      "create-low",
      "update-crit",
    ]);
  });

  it("priority and severity are not stored twice: the order follows the threat's record as it changes", () => {
    const c = world();
    putThreat(c, "a", record(1, { issue: { ...ISSUE, state: "open" }, link: `${REPO}#7` }));
    putThreat(c, "b", record(2));
    enqueue(c, "a", {}, "t");
    enqueue(c, "b", {}, "t");
    expect(c.state.queue["a"]).not.toHaveProperty("priority");
    expect(c.state.queue["a"]).not.toHaveProperty("severity");
    expect(orderedQueue(c.state, 0)).toEqual(["b", "a"]);
    // Without its link written, a mapped issue still finishes a create (interrupted create + link).
    putThreat(c, "a", record(1, { issue: { ...ISSUE, state: "open" } }));
    expect(dueWork(c.state, 0).find((d) => d.id === "a")?.priority).toBe(2);
    // The platform solved "a" meanwhile: its issue is now to be closed, which goes before a create.
    putThreat(c, "a", record(1, { status: "solved", issue: { ...ISSUE, state: "open" }, link: `${REPO}#7` }));
    expect(dueWork(c.state, 0).map((d) => [d.id, d.priority, d.severity])).toEqual([
      ["a", 1, 1],
      ["b", 2, 2],
    ]);
  });

  it("dueWork's filter leaves out before ordering: what it keeps comes in the order of the whole queue", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ sev: fc.integer({ min: 0, max: 4 }), person: fc.boolean(), issue: fc.boolean() }),
          {
            maxLength: 30,
          },
        ),
        fc.integer({ min: 0, max: 4 }),
        (rows, upTo) => {
          const c = world();
          rows.forEach((row, i) => {
            const id = `t${i}`;
            putThreat(
              c,
              id,
              record(row.sev, row.issue ? { issue: { ...ISSUE, state: "open" }, link: `${REPO}#7` } : {}),
            );
            enqueue(c, id, row.person ? { person } : {}, "t");
          });
          const all = dueWork(c.state, 0);
          expect(dueWork(c.state, 0, { upTo: upTo as QueueClass })).toEqual(
            all.filter((d) => d.priority <= upTo),
          );
          const odd = (d: { id: string }): boolean => Number(d.id.slice(1)) % 2 === 1;
          expect(dueWork(c.state, 0, { keep: odd })).toEqual(all.filter(odd));
        },
      ),
      { numRuns: 100 },
    );
  });

  it("one entry per threat: new work keeps its age, ends a back-off, and never drops a person's change", () => {
    const c = world();
    putThreat(c, "a", record(1, { issue: { ...ISSUE, state: "open" } }));
    enqueue(c, "a", { person }, "t");
    const entry = c.state.queue["a"];
    if (entry) putQueue(c, "a", { ...entry, notBefore: 10_000 });
    expect(orderedQueue(c.state, 0)).toEqual([]);
    const view = { view: { ...VIEW }, link: null };
    enqueue(c, "a", { pending: view }, "t2");
    expect(orderedQueue(c.state, 0)).toEqual(["a"]);
    expect(c.state.queue["a"]).toMatchObject({ seq: entry?.seq, person, pending: view });
    expect(Object.keys(c.state.queue)).toHaveLength(1);
  });

  it("summarizes the backlog by action and severity for `status`", () => {
    const c = world();
    putThreat(c, "a", record(4));
    putThreat(c, "b", record(3));
    putThreat(c, "c", record(3, { issue: { ...ISSUE, state: "closed" } }));
    enqueue(c, "a", {}, "t");
    enqueue(c, "b", {}, "t");
    enqueue(c, "c", { person: { ...person, event: "reopened" } }, "t");
    expect(queueSummary(c.state)).toMatchObject({
      total: 3,
      byAction: { create: 2, verdict: 1 },
      bySeverity: { critical: 1, high: 2 },
    });
  });

  it("the derived class is the action modules' priority of the threat's plan (contract, \"Priorities\"), whatever the record, read from the stored columns or the whole record alike", () => {
    const policy = policyFromConfig(makeConfig());
    const statuses = ["unsolved", "pending", "solved", "false_positive", "accepted"] as const;
    fc.assert(
      fc.property(
        fc.record({
          status: fc.constantFrom(...statuses),
          issueState: fc.option(fc.constantFrom("open" as const, "closed" as const)),
          gone: fc.boolean(),
          closedForRemoval: fc.boolean(),
          withPerson: fc.boolean(),
          sameHash: fc.boolean(),
          linked: fc.boolean(),
          linkWritten: fc.boolean(),
          // An SLA on the record, past due or not, and the SLA on in the config or not.
          sla: fc.option(fc.constantFrom("2026-01-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z")),
          slaOn: fc.boolean(),
        }),
        (r) => {
          const rec = record(2, {
            status: r.status,
            // A time in its canonical form, so that the table packs the row into its columns.
            updatedAt: "2026-01-02T03:04:05.678Z",
            ...(r.issueState ? { issue: { ...ISSUE, state: r.issueState } } : {}),
            ...(r.issueState && r.linkWritten ? { link: `${REPO}#7` } : {}),
            ...(r.gone ? { gone: true } : {}),
            ...(r.closedForRemoval ? { closedForRemoval: true } : {}),
            ...(r.sla ? { sla: { since: "2025-12-01T00:00:00.000Z", due: r.sla } } : {}),
          });
          const entry = { seq: 1, enqueuedAt: "t", attempts: 0, ...(r.withPerson ? { person } : {}) };
          const actions = plan({
            threatId: "x",
            threat: r.gone ? gone : present({ status: r.status }),
            link: r.linked ? { externalId: `${REPO}#7`, url: ISSUE.url } : null,
            record: rec,
            person: entry.person,
            eligible: true,
            route: { repo: REPO, labels: [], assignees: [] },
            rendered: r.gone
              ? null
              : { hash: r.sameHash ? "h1" : "h2", issue: { title: "T", body: "B", labels: [] } },
            policy,
            ...(r.slaOn
              ? {
                  sla: {
                    nowMs: Date.parse("2026-06-01T00:00:00.000Z"),
                    breachLabel: "sla:breached",
                    weekly: true,
                  },
                }
              : {}),
          });
          // The queue reads the record's brief from the column table (a packed row, or one kept
          // whole): the same class as from the whole record.
          const stored = ThreatRecordsView.of({ x: rec });
          expect(dueClass(stored.brief("x"), entry)).toBe(dueClass(rec, entry));
          if (actions.length === 0) return;
          // A create is finished by its link: a mapped issue whose link the record does not hold
          // yet stays in the create class (an interrupted create and link, shown as `create`).
          const finishingCreate = rec.issue && !rec.gone && rec.link === undefined;
          const expected = finishingCreate ? Math.min(priorityOf(actions), 2) : priorityOf(actions);
          expect(dueClass(rec, entry)).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("with risk acceptance and recurrence: new_issue on, the derived class is still the plan's priority: their decisions (asked before the core's clauses) fall in the classes the record gives (contract, \"Priorities\")", () => {
    const config = makeConfig({
      acceptance: { label: "risk-accepted", default: "30d", max: "90d", warn_before: "7d" },
      recurrence: "new_issue",
    });
    const policy = policyFromConfig(config);
    const until = Date.parse("2026-04-10T23:59:59.999Z");
    const statuses = ["unsolved", "pending", "solved", "false_positive", "accepted"] as const;
    fc.assert(
      fc.property(
        fc.record({
          status: fc.constantFrom(...statuses),
          issueState: fc.constantFrom("open" as const, "closed" as const),
          step: fc.option(
            fc.constantFrom("accepted", "announced", "warned", "expired") as fc.Arbitrary<
              "accepted" | "announced" | "warned" | "expired"
            >,
          ),
          // Before the warning's window, in it, past the end.
          nowMs: fc.constantFrom(until - 20 * 86_400_000, until - 3 * 86_400_000, until + 1),
          sought: fc.boolean(),
          recurredFrom: fc.option(fc.boolean()),
          occurrence: fc.constantFrom(1, 2),
          closedForRemoval: fc.boolean(),
          withPerson: fc.boolean(),
          riskLabel: fc.boolean(),
          sameHash: fc.boolean(),
          linkWritten: fc.boolean(),
        }),
        (r) => {
          // A recurrence's note goes out before the new issue's link (the plan's order): while it
          // is not noted, that link is not written yet (the record's brief says `create`).
          const linkWritten = r.linkWritten && r.recurredFrom !== false;
          const rec = record(2, {
            status: r.status,
            issue: { ...ISSUE, state: r.issueState },
            ...(linkWritten ? { link: `${REPO}#7` } : {}),
            ...(r.closedForRemoval ? { closedForRemoval: true } : {}),
            ...(r.step
              ? {
                  acceptance: { until: new Date(until).toISOString(), since: "s", by: "alice", step: r.step },
                }
              : {}),
            ...(r.sought ? { acceptanceSought: "u" } : {}),
            ...(r.occurrence > 1 ? { occurrence: r.occurrence } : {}),
            ...(r.recurredFrom !== null
              ? { recurredFrom: { repo: REPO, number: 3, ...(r.recurredFrom ? { noted: true } : {}) } }
              : {}),
          });
          const change: PersonChange = r.riskLabel
            ? { ...person, reason: "not_planned", labels: ["risk-accepted"] }
            : person;
          const entry = { seq: 1, enqueuedAt: "t", attempts: 0, ...(r.withPerson ? { person: change } : {}) };
          const rendered = { hash: r.sameHash ? "h1" : "h2", issue: { title: "T", body: "B", labels: [] } };
          // As planFor does: what the status seen makes of the record first (an ended acceptance is forgotten).
          const seen = statusSeen(config, rec, r.status, r.nowMs) ?? rec;
          const actions = plan({
            threatId: "x",
            threat: present({ status: r.status }),
            link: { externalId: `${REPO}#7`, url: ISSUE.url },
            record: seen,
            person: entry.person,
            eligible: true,
            route: { repo: REPO, labels: [], assignees: [] },
            rendered,
            policy,
            deciders: decidersFor(config, { threatId: "x", nowMs: r.nowMs, base: rendered }),
          });
          if (actions.length === 0) return;
          const finishingCreate = rec.link === undefined;
          const expected = finishingCreate ? Math.min(priorityOf(actions), 2) : priorityOf(actions);
          // The brief the queue reads (src/state's columns) holds no acceptance and no recurrence:
          // where the status asks the issue another state and a plug-in's step comes first (its
          // comment, its end, the recurrence's note), the threat is ranked at the state change's
          // class, ahead of that step's own, never behind it; everywhere else the classes agree.
          const stateStep = issueStateStep(r.status, rec.issue ?? { state: "open" }, r.closedForRemoval);
          if (stateStep !== null && !r.withPerson) expect(dueClass(rec, entry)).toBeLessThanOrEqual(expected);
          else expect(dueClass(rec, entry)).toBe(expected);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("a state stored before the order was derived still loads: entries lose `priority` and `severity`, and their order comes from the records", async () => {
    dir = await mkdtemp(join(tmpdir(), "tb-queue-"));
    const store = await openStateStore(join(dir, "state.json"));
    // As written by the earlier engine: the queue entry carries its priority and severity.
    store.set("threats", "old", { status: "unsolved", severity: 1, assetId: null, updatedAt: "u" });
    store.set("threats", "crit", { status: "unsolved", severity: 4, assetId: null, updatedAt: "u" });
    store.set("queue", "old", {
      priority: 0,
      severity: 4,
      seq: 1,
      enqueuedAt: "e",
      attempts: 2,
      lastError: "x",
    });
    store.set("queue", "crit", { priority: 2, severity: 0, seq: 2, enqueuedAt: "e", attempts: 0 });
    await store.commit();
    const state = stateFromStore(store);
    expect(state.queue["old"]).toEqual({ seq: 1, enqueuedAt: "e", attempts: 2, lastError: "x" });
    expect(orderedQueue(state, 0)).toEqual(["crit", "old"]);
    expect(queueSummary(state)).toMatchObject({
      total: 2,
      byAction: { create: 2 },
      bySeverity: { critical: 1, low: 1 },
      failing: 1,
    });
    await store.close();
  });
});

const VIEW = {
  id: "a",
  title: "T",
  description: null,
  severity: "low",
  severityRank: 1,
  module: null,
  status: "unsolved",
  ageDays: null,
  assetId: null,
  moduleData: null,
  updatedAt: "u2",
};
