import { describe, expect, it } from "vitest";
import { DAY_MS } from "../../../../src/shared/duration.js";
import type { ThreatRecord } from "../../../../src/sync/schema.js";
import { leavesStateAlone, plan, type Action, type PlanInput } from "../../../../src/sync/plan/plan.js";
import { notRead, present } from "../../../../src/sync/plan/known.js";
import { policyFromConfig } from "../../../../src/sync/plan/policy.js";
import { planSla, type SlaPolicy } from "../../../../src/sync/features/sla/plan.js";
import { weeklyMilestone } from "../../../../src/sync/features/sla/transitions.js";
import { makeConfig, REPO } from "../../harness.js";
import { featured, slaOf, type Spelled } from "../../feature-fields.js";

/**
 * Contract, "Workflow" → "SLA": the planner's clause. When an open issue passes its due date the
 * next cycle adds `breach_label` (one write), decided from the record and `now`, with no read.
 */

const ID = "00000000-0000-4000-8000-000000000001";
const NOW = Date.parse("2026-11-25T10:00:00.000Z");
const policy = policyFromConfig(makeConfig());
const rendered = { hash: "h1", issue: { title: "T", body: "B", labels: ["threatbridge"] } };
const route = { repo: REPO, labels: [], assignees: [] };
const issue = {
  repo: REPO,
  number: 7,
  url: "https://github.test/acme/threats/issues/7",
  state: "open" as const,
  hash: "h1",
};
const sla: SlaPolicy = { nowMs: NOW, breachLabel: "sla:breached", weekly: false };
const past = { since: new Date(NOW - 8 * DAY_MS).toISOString(), due: new Date(NOW - DAY_MS).toISOString() };
const ahead = { since: new Date(NOW).toISOString(), due: "2026-12-01T10:00:00.000Z" };

function record(extra: Partial<Spelled> = {}): ThreatRecord {
  return featured({
    status: "unsolved",
    severity: 4,
    assetId: null,
    updatedAt: "u",
    issue,
    link: `${REPO}#7`,
    ...extra,
  });
}
type SlaInput = PlanInput & { sla?: SlaPolicy | undefined };

/**
 * The core's plan, then the SLA feature's beside it where the core leaves the issue's state alone,
 * as plan-for.ts composes them (a close may make the SLA's steps moot; the next round asks again);
 * a new issue is created in the weekly milestone the feature asks for (`createWith`).
 */
function planWithSla(input: SlaInput): Action[] {
  const due = slaOf(input.record);
  const createWith = input.sla?.weekly === true && due ? { milestone: weeklyMilestone(due) } : {};
  const actions = plan({ ...input, createWith });
  return actions.every(leavesStateAlone) ? [...actions, ...planSla(input)] : actions;
}

function input(extra: Partial<SlaInput>): SlaInput {
  return {
    threatId: ID,
    threat: present({ status: "unsolved" }),
    link: { externalId: `${REPO}#7`, url: issue.url },
    record: undefined,
    person: undefined,
    eligible: true,
    route,
    rendered,
    policy,
    sla,
    ...extra,
  };
}
const breach = {
  kind: "feature",
  feature: "sla",
  step: "breach",
  threatId: ID,
  repo: REPO,
  number: 7,
  label: "sla:breached",
};

describe("plan: the SLA clause", () => {
  it("an open issue past its due date → the breach label, also for a threat not read (no read needed)", () => {
    expect(planWithSla(input({ record: record({ sla: past }) }))).toEqual([breach]);
    expect(planWithSla(input({ threat: notRead, link: null, record: record({ sla: past }) }))).toEqual([
      breach,
    ]);
  });

  it("nothing before the due date, nor once the label was added or a person removed it, nor without `sla`", () => {
    expect(planWithSla(input({ record: record({ sla: ahead }) }))).toEqual([]);
    expect(planWithSla(input({ record: record({ sla: { ...past, breach: "added" } }) }))).toEqual([]);
    expect(planWithSla(input({ record: record({ sla: { ...past, breach: "removed" } }) }))).toEqual([]);
    expect(planWithSla(input({ record: record({ sla: past }), sla: undefined }))).toEqual([]);
  });

  it("a closed issue gets no label; a close that is due goes first, without the label", () => {
    const closed = record({ issue: { ...issue, state: "closed" }, status: "solved", sla: past });
    expect(planWithSla(input({ threat: present({ status: "solved" }), record: closed }))).toEqual([]);
    const closing = planWithSla(
      input({ threat: present({ status: "solved" }), record: record({ sla: past }) }),
    );
    expect(closing.map((a) => a.kind)).toEqual(["update"]);
  });

  it("beside a content update the label is planned in the same step (one round, one write each)", () => {
    const changed = planWithSla(
      input({ rendered: { ...rendered, hash: "h2" }, record: record({ sla: past }) }),
    );
    expect(changed.map((a) => (a.kind === "feature" ? `${a.feature}.${a.step}` : a.kind))).toEqual([
      "update",
      "sla.breach",
    ]);
  });

  it("weekly milestones: an open issue not in its due week's milestone gets it; a new issue is created in it", () => {
    const weekly = { ...sla, weekly: true };
    expect(planWithSla(input({ sla: weekly, record: record({ sla: ahead }) }))).toEqual([
      {
        kind: "feature",
        feature: "sla",
        step: "milestone",
        threatId: ID,
        repo: REPO,
        number: 7,
        title: "SLA 2026-12-06",
        dueOn: "2026-12-06",
      },
    ]);
    expect(
      planWithSla(input({ sla: weekly, record: record({ sla: { ...ahead, milestone: "SLA 2026-12-06" } }) })),
    ).toEqual([]);
    const fresh = planWithSla(
      input({
        sla: weekly,
        link: null,
        record: featured({ status: "unsolved", severity: 4, assetId: null, updatedAt: "u", sla: ahead }),
      }),
    );
    expect(fresh).toMatchObject([
      { kind: "create", milestone: { title: "SLA 2026-12-06", dueOn: "2026-12-06" } },
    ]);
  });
});
