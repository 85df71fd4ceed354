import { describe, expect, it } from "vitest";
import type { IssueSnapshot } from "../../src/github/index.js";
import type { PersonChange, ThreatRecord } from "../../src/sync/schema.js";
import {
  actionModules,
  describeAction,
  isGitHubWrite,
  isMappingRepair,
  priorityOf,
  type Settlement,
} from "../../src/sync/actions/index.js";
import type { Action, FeatureAction } from "../../src/sync/plan/plan.js";
import { featureModule } from "../../src/sync/features/registry.js";
import { REPO } from "./harness.js";
import { acceptanceOf, featured, spelled } from "./feature-fields.js";

const ID = "00000000-0000-4000-8000-000000000001";
const person: PersonChange = {
  event: "closed",
  reason: "completed",
  login: "alice",
  repo: REPO,
  number: 7,
  url: "https://github.test/acme/threats/issues/7",
  seenAt: "now",
};

/**
 * One sample per kind of the `Action` union. Typed as a Record over the union's kinds, this does
 * not compile when a kind is added without a sample, and the registry's own type does not compile
 * when a kind has no module.
 */
// The plug-in features' kinds (one core kind, `feature`) are sampled with their features' own tests.
const samples: { [K in Exclude<Action["kind"], "feature">]: Extract<Action, { kind: K }> } = {
  verdict: { kind: "verdict", threatId: ID, status: "solved", note: "", person },
  accept: { kind: "accept", threatId: ID, state: "closed" },
  adopt: { kind: "adopt", threatId: ID, repo: REPO, number: 7 },
  create: {
    kind: "create",
    threatId: ID,
    repo: REPO,
    title: "T",
    body: "B",
    labels: ["threatbridge"],
    assignees: ["oncall"],
    hash: "h",
  },
  update: { kind: "update", threatId: ID, repo: REPO, number: 7, state: "closed", stateReason: "completed" },
  link: { kind: "link", threatId: ID, repo: REPO, number: 7, externalId: `${REPO}#7`, url: "u" },
};
/**
 * Risk acceptance's and recurrence's writes: plug-in steps through the one core kind `feature`
 * (features/acceptance, features/recurrence), under the names their kinds had.
 */
const acceptance = { kind: "feature", feature: "acceptance", decided: true, threatId: ID } as const;
const featureSamples = {
  accept_risk: {
    ...acceptance,
    step: "accept_risk",
    repo: REPO,
    number: 7,
    person: { ...person, reason: "not_planned", labels: ["risk-accepted"] },
    now: Date.parse("2026-03-01T10:00:00Z"),
    defaultMs: 90 * 86_400_000,
    maxMs: 365 * 86_400_000,
    note: (until: string) => `accepted until ${until}`,
  },
  step_comment: { ...acceptance, step: "step_comment", repo: REPO, number: 7, body: "until" },
  warn_expiry: { ...acceptance, step: "warn_expiry", repo: REPO, number: 7, body: "soon" },
  expire_risk: { ...acceptance, step: "expire_risk", repo: REPO, number: 7 },
  recover_acceptance: {
    ...acceptance,
    step: "recover_acceptance",
    repo: REPO,
    number: 7,
    version: "2026-01-02T00:00:00.000Z",
    now: Date.parse("2026-01-03T00:00:00.000Z"),
  },
  recur: {
    kind: "feature",
    feature: "recurrence",
    step: "recur",
    decided: true,
    writesBody: true,
    threatId: ID,
    repo: REPO,
    occurrence: 2,
    previous: { repo: REPO, number: 7 },
    title: "T",
    body: "B",
    labels: ["threatbridge"],
    assignees: [],
    hash: "h2",
  },
} satisfies Record<string, FeatureAction & Record<string, unknown>>;
const everySample: Action[] = [...Object.values(samples), ...Object.values(featureSamples)];
/** A feature's step by its name, a core action by its kind. */
const nameOf = (action: Action): string => (action.kind === "feature" ? action.step : action.kind);
const contentUpdate: Extract<Action, { kind: "update" }> = {
  kind: "update",
  threatId: ID,
  repo: REPO,
  number: 7,
  content: { title: "T", body: "B", labels: [] },
  hash: "h2",
};

describe("action modules (one module per action kind)", () => {
  it("every kind of the Action union has exactly one registered module, named by its kind", () => {
    expect(Object.keys(actionModules).sort()).toEqual([...Object.keys(samples), "feature"].sort());
    for (const [kind, module] of Object.entries(actionModules)) expect(module.kind).toBe(kind);
  });

  it("contract priorities: verdicts, then closes/reopens, then creates, then the rest", () => {
    const p = (a: Action): number => priorityOf([a]);
    expect(p(samples.verdict)).toBe(p(samples.accept));
    expect(p(samples.verdict)).toBeLessThan(p(samples.update));
    expect(p(samples.update)).toBeLessThan(p(samples.create));
    expect(p(samples.create)).toBe(p(samples.adopt));
    expect(p(samples.create)).toBeLessThan(p(contentUpdate));
    expect(p(contentUpdate)).toBe(p(samples.link));
    // A plan runs at the class of its most urgent action.
    expect(priorityOf([samples.link, samples.update])).toBe(p(samples.update));
  });

  it("only GitHub writes (creates, issue PATCHes, comments, the SLA's label and milestone) spend the write budget; reconcile only repairs the mapping (and what the state lost of an acceptance)", () => {
    const spending = everySample.filter(isGitHubWrite).map(nameOf);
    expect(spending.sort()).toEqual(["create", "recur", "step_comment", "update", "warn_expiry"]);
    // The SLA's steps, through the one core kind of the features: GitHub writes, never repairs.
    const at = { kind: "feature" as const, feature: "sla", threatId: ID, repo: REPO, number: 7 };
    const steps = [
      { ...at, step: "breach", label: "sla:breached" },
      { ...at, step: "milestone", title: "SLA 2026-12-06", dueOn: "2026-12-06" },
    ] as unknown as Action[];
    expect(steps.map(isGitHubWrite)).toEqual([true, true]);
    expect(steps.map(isMappingRepair)).toEqual([false, false]);
    const repairs = everySample.filter(isMappingRepair).map(nameOf);
    expect(repairs.sort()).toEqual(["accept", "adopt", "link", "recover_acceptance"]);
  });

  it("dry run: each kind describes what it would do (labels of a create, the state of a close)", () => {
    expect(describeAction(samples.create)).toEqual({ labels: ["threatbridge"], assignees: ["oncall"] });
    expect(describeAction(samples.verdict)).toEqual({ repository: REPO, issue: 7, detail: "status=solved" });
    expect(describeAction(samples.update)).toEqual({ action: "close", detail: "state=closed" });
    expect(describeAction(contentUpdate)).toEqual({ detail: "content changed" });
    // A feature's step is described by its own module, under its audit line's name (contract's vocabulary).
    const breach = { kind: "feature" as const, feature: "sla", step: "breach", threatId: ID };
    expect(describeAction({ ...breach, repo: REPO, number: 7, label: "sla:breached" } as Action)).toEqual({
      action: "update",
      labels: ["sla:breached"],
      detail: "SLA breached",
    });
    const milestone = { ...breach, step: "milestone", repo: REPO, number: 7, title: "SLA 2026-12-06" };
    // Putting an issue into its milestone is an issue PATCH (`update`); making the milestone first is
    // a `milestone` line of its own, where the repository lacks it.
    expect(describeAction({ ...milestone, dueOn: "2026-12-06" } as Action)).toEqual({
      action: "update",
      detail: 'milestone "SLA 2026-12-06"',
    });
  });
});

/** The threat's record as a settlement leaves it (its transition applied to a mapped record). */
function recordAfter(settlement: Settlement): ThreatRecord | undefined {
  const before: ThreatRecord = {
    status: "unsolved",
    severity: 3,
    assetId: null,
    updatedAt: "u",
    issue: { repo: REPO, number: 7, url: "u", state: "open", hash: "h" },
  };
  return settlement.record?.(before);
}

describe("action modules say what an answer means as plain data (the runner applies it)", () => {
  it("a verdict the platform answers 404 for: the threat is gone, the person's change done, the issue as the person left it", () => {
    const settled = actionModules.verdict.settle(samples.verdict, { gone: true });
    expect(settled.events).toEqual([{ type: "threat_gone", threatId: ID }]);
    expect(settled.finished).toBe("person");
    expect(settled.cache).toBe("forget");
    expect(spelled(recordAfter(settled))).toMatchObject({ gone: true, issue: { state: "closed" } });
  });

  it("a close whose comment failed after the PATCH landed is recorded as written and left unfinished, so its intent stays", () => {
    const answer = { ...snapshot(), state: "closed" as const };
    const failure = new Error("comment refused");
    const settled = actionModules.update.settle(samples.update, {
      issue: answer,
      commented: false,
      unfinished: failure,
    });
    expect(settled.unfinished).toBe(failure);
    expect(settled.events).toEqual([{ type: "closed", threatId: ID, issue: { repo: REPO, number: 7 } }]);
    expect(recordAfter(settled)?.issue?.state).toBe("closed");
  });

  it("a content PATCH's answer may show a person's change; a state change's answer is the connector's own", () => {
    const content = actionModules.update.settle(contentUpdate, {
      issue: snapshot(),
      commented: false,
    });
    expect(content.answered?.mayShowPerson).toBe(true);
    const close = actionModules.update.settle(samples.update, { issue: snapshot(), commented: true });
    expect(close.answered?.mayShowPerson).toBe(false);
    expect(close.events.map((e) => e.type)).toEqual(["closed", "commented"]);
  });

  it("a create GitHub refused in full and took with the minimal body tells both, and finishes the pending view", () => {
    const settled = actionModules.create.settle(samples.create, { issue: snapshot(), minimal: true });
    expect(settled.events.map((e) => e.type)).toEqual(["created_minimal", "created"]);
    expect(settled.finished).toBe("pending");
    expect(recordAfter(settled)?.issue).toMatchObject({ repo: REPO, number: 7, hash: "h" });
  });

  it("risk acceptance: the accepted PATCH records the end people typed, a refused date is said once, the person's change is done", () => {
    const threat = { id: ID, status: "accepted", updated_at: "2026-03-01T10:00:01Z" } as const;
    const settled = featureModule(featureSamples.accept_risk).settle(featureSamples.accept_risk, {
      end: {
        until: Date.parse("2026-05-30T23:59:59.999Z"),
        ignored: "2027-12-31 is later than acceptance.max allows",
      },
      outcome: { gone: false, answer: threat as never },
    });
    expect(settled.events.map((e) => e.type)).toEqual(["acceptance_date_ignored", "risk_accepted"]);
    expect(settled.events[1]).toMatchObject({ detail: "2026-05-30" });
    expect(settled.finished).toBe("person");
    expect(spelled(recordAfter(settled))).toMatchObject({
      status: "accepted",
      issue: { state: "closed" },
      acceptance: { until: "2026-05-30T23:59:59.999Z", by: "alice", step: "accepted" },
    });
  });

  it("risk acceptance: its comments go out under a comment intent keyed to the step, and advance it", () => {
    expect(
      featureModule(featureSamples.warn_expiry).intent?.(featureSamples.warn_expiry)?.fields,
    ).toMatchObject({
      kind: "comment",
      step: "warn",
      body: "soon",
    });
    const warned = featureModule(featureSamples.warn_expiry).settle(featureSamples.warn_expiry, {
      posted: true,
    });
    expect(warned.events.map((e) => e.type)).toEqual(["expiry_warned"]);
    const before: ThreatRecord = featured({
      status: "accepted",
      severity: 3,
      assetId: null,
      updatedAt: "u",
      acceptance: { until: "2026-05-30T23:59:59.999Z", since: "s", by: "alice", step: "announced" },
    });
    expect(acceptanceOf(warned.record?.(before))?.step).toBe("warned");
  });

  it("recurrence: the new issue's create intent names its occurrence, and the old issue is kept to be commented", () => {
    // The create intent earlier versions journaled, resolved by the recurrence plug-in, which
    // claims it and looks for that occurrence's marker (features/recurrence/recover.ts).
    expect(featureModule(featureSamples.recur).intent?.(featureSamples.recur)).toMatchObject({
      fields: { kind: "create", markerNumber: 2 },
      onFailure: "feature-recover",
    });
    const settled = featureModule(featureSamples.recur).settle(featureSamples.recur, {
      issue: { ...snapshot(), number: 9 },
    });
    expect(settled.events).toEqual([
      { type: "recurred", threatId: ID, issue: { repo: REPO, number: 9 }, detail: `${REPO}#7` },
    ]);
    expect(spelled(recordAfter(settled))).toMatchObject({
      occurrence: 2,
      issue: { number: 9 },
      recurredFrom: { repo: REPO, number: 7 },
    });
  });

  it("an adopt whose issue answers 404 marks the issue deleted instead of adopting", () => {
    const settled = actionModules.adopt.settle(samples.adopt, null);
    expect(settled.deleted).toEqual({ repo: REPO, number: 7 });
    expect(settled.record).toBeUndefined();
  });
});

function snapshot(): IssueSnapshot {
  return {
    repo: REPO,
    number: 7,
    id: 5_000_007,
    url: "https://github.test/acme/threats/issues/7",
    state: "open",
    stateReason: null,
    title: "T",
    body: "",
    labels: [],
    assignees: [],
    updatedAt: "2026-01-01T00:00:00Z",
    threatId: ID,
  };
}
