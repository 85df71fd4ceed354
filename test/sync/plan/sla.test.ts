import { describe, expect, it } from "vitest";
import { DAY_MS } from "../../../src/shared/duration.js";
import type { ThreatRecord } from "../../../src/state/index.js";
import { plan, type PlanInput } from "../../../src/sync/plan/plan.js";
import { notRead, present } from "../../../src/sync/plan/known.js";
import { policyFromConfig } from "../../../src/sync/plan/policy.js";
import type { SlaPolicy } from "../../../src/sync/features/sla/plan.js";
import { makeConfig, REPO } from "../harness.js";

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

function record(extra: Partial<ThreatRecord> = {}): ThreatRecord {
  return {
    status: "unsolved",
    severity: 4,
    assetId: null,
    updatedAt: "u",
    issue,
    link: `${REPO}#7`,
    ...extra,
  };
}
function input(extra: Partial<PlanInput>): PlanInput {
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
const breach = { kind: "sla_breach", threatId: ID, repo: REPO, number: 7, label: "sla:breached" };

describe("plan: the SLA clause", () => {
  it("an open issue past its due date → the breach label, also for a threat not read (no read needed)", () => {
    expect(plan(input({ record: record({ sla: past }) }))).toEqual([breach]);
    expect(plan(input({ threat: notRead, link: null, record: record({ sla: past }) }))).toEqual([breach]);
  });

  it("nothing before the due date, nor once the label was added or a person removed it, nor without `sla`", () => {
    expect(plan(input({ record: record({ sla: ahead }) }))).toEqual([]);
    expect(plan(input({ record: record({ sla: { ...past, breach: "added" } }) }))).toEqual([]);
    expect(plan(input({ record: record({ sla: { ...past, breach: "removed" } }) }))).toEqual([]);
    expect(plan(input({ record: record({ sla: past }), sla: undefined }))).toEqual([]);
  });

  it("a closed issue gets no label; a close that is due goes first, without the label", () => {
    const closed = record({ issue: { ...issue, state: "closed" }, status: "solved", sla: past });
    expect(plan(input({ threat: present({ status: "solved" }), record: closed }))).toEqual([]);
    const closing = plan(input({ threat: present({ status: "solved" }), record: record({ sla: past }) }));
    expect(closing.map((a) => a.kind)).toEqual(["update"]);
  });

  it("beside a content update the label is planned in the same step (one round, one write each)", () => {
    const changed = plan(input({ rendered: { ...rendered, hash: "h2" }, record: record({ sla: past }) }));
    expect(changed.map((a) => a.kind)).toEqual(["update", "sla_breach"]);
  });

  it("weekly milestones: an open issue not in its due week's milestone gets it; a new issue is created in it", () => {
    const weekly = { ...sla, weekly: true };
    expect(plan(input({ sla: weekly, record: record({ sla: ahead }) }))).toEqual([
      {
        kind: "sla_milestone",
        threatId: ID,
        repo: REPO,
        number: 7,
        title: "SLA 2026-12-06",
        dueOn: "2026-12-06",
      },
    ]);
    expect(
      plan(input({ sla: weekly, record: record({ sla: { ...ahead, milestone: "SLA 2026-12-06" } }) })),
    ).toEqual([]);
    const fresh = plan(
      input({
        sla: weekly,
        link: null,
        record: { status: "unsolved", severity: 4, assetId: null, updatedAt: "u", sla: ahead },
      }),
    );
    expect(fresh).toMatchObject([
      { kind: "create", milestone: { title: "SLA 2026-12-06", dueOn: "2026-12-06" } },
    ]);
  });
});
