import { describe, expect, it } from "vitest";
import { planProjectWrites } from "../../../../src/sync/features/project/plan.js";
import { encodeSlice, valueHash } from "../../../../src/sync/features/project/slice.js";
import { withSlice } from "../../../../src/sync/features/types.js";
import type { ThreatRecord } from "../../../../src/sync/schema.js";

const T = "00000000-0000-4000-8000-000000000001";
const base: ThreatRecord = {
  status: "unsolved",
  severity: 3,
  assetId: null,
  updatedAt: "2026-01-01T00:00:00Z",
  issue: {
    repo: "acme/threats",
    number: 4,
    url: "https://github.test/acme/threats/issues/4",
    state: "open",
    hash: "h",
    id: 5001,
  },
};
const rendered = (severity: string) =>
  new Map([
    ["Severity", severity],
    ["Due", ""],
  ]);
const settled = (severity: string): ThreatRecord =>
  withSlice(
    base,
    "project",
    encodeSlice({ k: "acme/threats#4", i: 901, v: { Severity: valueHash(severity), Due: valueHash("") } }),
  );

describe("the project's plan for a threat (pure)", () => {
  it("an issue with no item recorded is added, by its GitHub id", () => {
    expect(planProjectWrites(T, base, rendered("high"))).toEqual([
      {
        kind: "feature",
        feature: "project",
        step: "add",
        threatId: T,
        repo: "acme/threats",
        number: 4,
        issueId: 5001,
      },
    ]);
  });

  it("an issue recorded without its id is added all the same (the module reads the issue once)", () => {
    const { id: _id, ...issue } = base.issue!;
    const [action] = planProjectWrites(T, { ...base, issue }, null);
    expect(action).toMatchObject({ step: "add" });
    expect(action).not.toHaveProperty("issueId");
  });

  it("once added, every changed field goes in one action (one PATCH); once written, the plan is empty", () => {
    const added = withSlice(base, "project", encodeSlice({ k: "acme/threats#4", i: 901, v: {} }));
    expect(planProjectWrites(T, added, rendered("high"))).toEqual([
      expect.objectContaining({ step: "fields", itemId: 901, values: { Severity: "high", Due: "" } }),
    ]);
    expect(planProjectWrites(T, settled("high"), rendered("high"))).toEqual([]);
  });

  it("a person's edit on the board stands: nothing is planned until the threat changes that value", () => {
    // The plan never reads the board: the same rendered values plan nothing, whatever the board shows.
    expect(planProjectWrites(T, settled("high"), rendered("high"))).toEqual([]);
  });

  it("a severity change plans one PATCH of that field alone", () => {
    const actions = planProjectWrites(T, settled("high"), rendered("critical"));
    expect(actions).toEqual([expect.objectContaining({ step: "fields", values: { Severity: "critical" } })]);
  });

  it("the threat not read in this run (work from the record) plans no field write", () => {
    expect(planProjectWrites(T, settled("high"), null)).toEqual([]);
  });

  it("a recurrence's new issue gets an item of its own; an item a person removed is not added again", () => {
    const next = { ...settled("high"), issue: { ...base.issue!, number: 9, id: 5009 } };
    expect(planProjectWrites(T, next, rendered("high"))).toEqual([
      expect.objectContaining({ step: "add", number: 9, issueId: 5009 }),
    ]);
    const removed = withSlice(base, "project", encodeSlice({ k: "acme/threats#4", i: 0, v: {} }));
    expect(planProjectWrites(T, removed, rendered("critical"))).toEqual([]);
  });

  it("a gone threat or one without an issue plans nothing", () => {
    expect(planProjectWrites(T, { ...base, gone: true }, rendered("high"))).toEqual([]);
    const { issue: _i, ...noIssue } = base;
    expect(planProjectWrites(T, noIssue, rendered("high"))).toEqual([]);
  });
});
