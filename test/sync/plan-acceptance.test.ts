import { describe, expect, it } from "vitest";
import type { PersonChange, ThreatRecord } from "../../src/sync/schema.js";
import type { Config } from "../../src/config/index.js";
import { plan, REOPEN_COMMENT, type Action, type PlanInput } from "../../src/sync/plan/plan.js";
import { EXPIRED_COMMENT } from "../../src/sync/features/acceptance/comments.js";
import type { AcceptRisk } from "../../src/sync/features/acceptance/actions.js";
import type { RecurAction } from "../../src/sync/features/recurrence/actions.js";
import { decidersFor } from "../../src/sync/features/registry.js";
import { present } from "../../src/sync/plan/known.js";
import { policyFromConfig } from "../../src/sync/plan/policy.js";
import { forOccurrence } from "../../src/sync/features/recurrence/occurrence.js";
import { makeConfig, REPO } from "./harness.js";
import { featured, type Spelled } from "./feature-fields.js";
import { withAcceptance } from "../../src/sync/features/acceptance/slice.js";
import { withRecurrence } from "../../src/sync/features/recurrence/slice.js";

/**
 * The planner's clauses for risk acceptance and recurrence (contract, "Workflow": "Risk
 * acceptance", "Recurrence"), pure: each step from the record and `now`. They are the plug-ins'
 * deciders (features/acceptance, features/recurrence), asked by the planner before its own clauses
 * as planFor gathers them from the config (features/registry.ts `decidersFor`).
 */

const ID = "00000000-0000-4000-8000-000000000001";
const DAY = 86_400_000;
const NOW = Date.parse("2026-03-01T10:00:00Z");
const UNTIL = "2026-04-10T23:59:59.999Z";
const acceptance = { label: "risk-accepted", default: "30d", max: "90d", warn_before: "7d" };
const acceptanceConfig = makeConfig({ acceptance });
const acceptanceOn = policyFromConfig(acceptanceConfig);
const acceptanceOff = makeConfig();
const newIssues = makeConfig({ recurrence: "new_issue" });
const both = makeConfig({ acceptance, recurrence: "new_issue" });
const rendered = {
  hash: "h1",
  issue: { title: "T", body: `B\n\n<!-- threatbridge:threat=${ID} -->`, labels: ["threatbridge"] },
};
const route = { repo: REPO, labels: [], assignees: [] };
const closed = { repo: REPO, number: 7, url: "u7", state: "closed" as const, hash: "h1" };

/** The planner's input with the deciders of the features `config` switches on, made at `now`. */
function input({
  config = acceptanceConfig,
  now = NOW,
  ...extra
}: Partial<PlanInput> & { config?: Config; now?: number }): PlanInput {
  return {
    threatId: ID,
    threat: present({ status: "accepted" }),
    link: { externalId: `${REPO}#7`, url: "u7" },
    record: undefined,
    person: undefined,
    eligible: true,
    route,
    rendered,
    policy: policyFromConfig(config),
    deciders: decidersFor(config, { threatId: ID, nowMs: now, base: rendered }),
    ...extra,
  };
}

/** A feature's step by its name, a core action by its kind. */
const stepOf = (action: Action | undefined): string | undefined =>
  action?.kind === "feature" ? action.step : action?.kind;

const record = (extra: Partial<Spelled>): ThreatRecord =>
  featured({
    status: "accepted",
    severity: 3,
    assetId: null,
    updatedAt: "u",
    issue: closed,
    link: `${REPO}#7`,
    ...extra,
  });
const held = (step: "accepted" | "announced" | "warned" | "expired") =>
  record({ acceptance: { until: UNTIL, since: "s", by: "alice", step } });

const close = (labels: string[]): PersonChange => ({
  event: "closed",
  reason: "not_planned",
  login: "alice",
  repo: REPO,
  number: 7,
  url: "u7",
  seenAt: "now",
  labels,
});

describe("risk acceptance: a person's close", () => {
  it("closed not planned with the acceptance label → accepted instead of the not_planned verdict", () => {
    const actions = plan(
      input({
        threat: present({ status: "unsolved" }),
        record: record({ status: "unsolved" }),
        person: close(["Risk-Accepted"]),
      }),
    );
    expect(actions).toMatchObject([
      {
        kind: "feature",
        feature: "acceptance",
        step: "accept_risk",
        repo: REPO,
        number: 7,
        now: NOW,
        defaultMs: 30 * DAY,
        maxMs: 90 * DAY,
      },
    ]);
  });

  it("without the label, or with acceptance off, the usual verdict", () => {
    const unlabelled = plan(
      input({
        threat: present({ status: "unsolved" }),
        record: record({ status: "unsolved" }),
        person: close(["bug"]),
      }),
    );
    expect(unlabelled).toMatchObject([
      { kind: "verdict", status: acceptanceOn.verdicts.closed.not_planned.status },
    ]);
    const off = plan(
      input({
        config: acceptanceOff,
        threat: present({ status: "unsolved" }),
        record: record({ status: "unsolved" }),
        person: close(["risk-accepted"]),
      }),
    );
    expect(off.map((a) => a.kind)).toEqual(["verdict"]);
  });

  it("its status note names the issue, the person and the end", () => {
    const [action] = plan(
      input({
        threat: present({ status: "unsolved" }),
        record: record({ status: "unsolved" }),
        person: close(["risk-accepted"]),
      }),
    );
    if (stepOf(action) !== "accept_risk") throw new Error("no accept_risk");
    expect((action as AcceptRisk).note("2026-04-10")).toBe(
      `Risk accepted on GitHub (${REPO}#7) by alice until 2026-04-10.`,
    );
  });
});

describe("risk acceptance: the steps after it, from the record and now", () => {
  const at = (ms: number) => ({ now: ms });
  const until = Date.parse(UNTIL);
  it("the comment naming the end first", () => {
    expect(plan(input({ record: held("accepted"), ...at(NOW) }))).toMatchObject([
      { kind: "feature", feature: "acceptance", step: "step_comment" },
    ]);
  });
  it("nothing before the warning's window; the warning in it; the end past it", () => {
    expect(plan(input({ record: held("announced"), ...at(until - 8 * DAY) }))).toEqual([]);
    expect(plan(input({ record: held("announced"), ...at(until - 6 * DAY) }))).toMatchObject([
      { kind: "feature", feature: "acceptance", step: "warn_expiry" },
    ]);
    expect(plan(input({ record: held("warned"), ...at(until - DAY) }))).toEqual([]);
    expect(plan(input({ record: held("warned"), ...at(until + 1) }))).toMatchObject([
      { kind: "feature", feature: "acceptance", step: "expire_risk" },
    ]);
    // No cycle ran in the window: it ends without a late warning.
    expect(plan(input({ record: held("announced"), ...at(until + 1) }))).toMatchObject([
      { kind: "feature", feature: "acceptance", step: "expire_risk" },
    ]);
  });
  it("at the end: reopened with a comment saying why (recurrence: reopen)", () => {
    const actions = plan(
      input({ threat: present({ status: "unsolved" }), record: held("expired"), ...at(until + 1) }),
    );
    expect(actions).toEqual([
      {
        kind: "update",
        threatId: ID,
        repo: REPO,
        number: 7,
        state: "open",
        stateReason: "reopened",
        comment: EXPIRED_COMMENT,
      },
    ]);
  });
  it("at the end with recurrence: new_issue, a new issue of occurrence 2 naming the old one", () => {
    const actions = plan(
      input({
        config: both,
        threat: present({ status: "unsolved" }),
        record: held("expired"),
        ...at(until + 1),
      }),
    );
    expect(actions).toMatchObject([
      { feature: "recurrence", step: "recur", occurrence: 2, previous: { repo: REPO, number: 7 } },
    ]);
    if (stepOf(actions[0]) !== "recur") throw new Error("no recur");
    const recur = actions[0] as RecurAction;
    expect(recur.body).toContain(`Recurrence of ${REPO}#7`);
    expect(recur.body).toContain(`<!-- threatbridge:threat=${ID} occurrence=2 -->`);
    expect(recur.body).not.toContain(`<!-- threatbridge:threat=${ID} -->`);
  });
});

describe("recurrence (contract: reopen stays today's behaviour; new_issue opens one per occurrence)", () => {
  const unsolvedAgain = { threat: present({ status: "unsolved" }), record: record({ status: "solved" }) };
  it("reopen: the closed issue of a threat unsolved again is reopened, as today", () => {
    expect(plan(input({ ...unsolvedAgain, config: acceptanceOff }))).toMatchObject([
      { kind: "update", state: "open", comment: REOPEN_COMMENT },
    ]);
  });
  it("new_issue: a new issue instead, then a comment on the old one naming the new, then the link", () => {
    expect(plan(input({ ...unsolvedAgain, config: newIssues }))).toMatchObject([
      { feature: "recurrence", step: "recur", occurrence: 2 },
    ]);
    const second = forOccurrence(rendered, ID, 2, { repo: REPO, number: 7 });
    const next = { ...closed, number: 9, url: "u9", state: "open" as const, hash: second.hash };
    const after = record({
      status: "unsolved",
      issue: next,
      occurrence: 2,
      recurredFrom: { repo: REPO, number: 7 },
    });
    expect(plan(input({ ...unsolvedAgain, record: after, config: newIssues }))).toMatchObject([
      {
        kind: "feature",
        feature: "recurrence",
        step: "step_comment",
        repo: REPO,
        number: 7,
        body: expect.stringContaining(`${REPO}#9`),
      },
    ]);
    const noted = withRecurrence(after, { from: { repo: REPO, number: 7, noted: true } });
    const third = plan(
      input({
        ...unsolvedAgain,
        record: noted,
        config: newIssues,
        rendered: second,
      }),
    );
    expect(third).toMatchObject([{ kind: "link", number: 9 }]);
  });
});

describe("an acceptance the state lost (a lost state file): read back once from the issue's comments", () => {
  it("an accepted threat's closed issue with no acceptance in the record: one read of its comments, once per version", () => {
    const lost = record({});
    expect(plan(input({ record: lost }))).toEqual([
      {
        kind: "feature",
        feature: "acceptance",
        step: "recover_acceptance",
        decided: true,
        threatId: ID,
        repo: REPO,
        number: 7,
        version: "u",
        now: NOW,
      },
    ]);
    // Sought for this version: not again until the threat changes.
    expect(plan(input({ record: withAcceptance(lost, { sought: "u" }) }))).toEqual([]);
    expect(
      stepOf(plan(input({ record: withAcceptance({ ...lost, updatedAt: "u2" }, { sought: "u" }) }))[0]),
    ).toBe("recover_acceptance");
  });

  it("nothing to seek: the acceptance is known, the issue is open, the threat is not accepted, or acceptance is off", () => {
    expect(plan(input({ record: held("announced") }))).toEqual([]);
    expect(stepOf(plan(input({ record: record({ issue: { ...closed, state: "open" } }) }))[0])).not.toBe(
      "recover_acceptance",
    );
    expect(plan(input({ record: record({}), threat: present({ status: "solved" }) }))).toEqual([]);
    expect(plan(input({ record: record({}), config: newIssues }))).toEqual([]);
  });
});
