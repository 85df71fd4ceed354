import { describe, expect, it } from "vitest";
import type { PersonChange } from "../../src/state/index.js";
import {
  actionModules,
  describeAction,
  isGitHubWrite,
  isMappingRepair,
  priorityOf,
} from "../../src/sync/actions/index.js";
import type { Action } from "../../src/sync/plan/plan.js";
import { REPO } from "./harness.js";

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
const samples: { [K in Action["kind"]]: Extract<Action, { kind: K }> } = {
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
const contentUpdate: Action = {
  kind: "update",
  threatId: ID,
  repo: REPO,
  number: 7,
  content: { title: "T", body: "B", labels: [] },
  hash: "h2",
};

describe("action modules (issue 7, item 3: one module per action kind)", () => {
  it("every kind of the Action union has exactly one registered module, named by its kind", () => {
    expect(Object.keys(actionModules).sort()).toEqual(Object.keys(samples).sort());
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

  it("only creates and issue PATCHes spend the GitHub write budget; reconcile only repairs the mapping", () => {
    const spending = Object.values(samples)
      .filter(isGitHubWrite)
      .map((a) => a.kind);
    expect(spending.sort()).toEqual(["create", "update"]);
    const repairs = Object.values(samples)
      .filter(isMappingRepair)
      .map((a) => a.kind);
    expect(repairs.sort()).toEqual(["accept", "adopt", "link"]);
  });

  it("dry run: each kind describes what it would do (labels of a create, the state of a close)", () => {
    expect(describeAction(samples.create)).toEqual({ labels: ["threatbridge"], assignees: ["oncall"] });
    expect(describeAction(samples.verdict)).toEqual({ detail: "status=solved" });
    expect(describeAction(samples.update)).toEqual({ detail: "state=closed" });
    expect(describeAction(contentUpdate)).toEqual({ detail: "content changed" });
  });
});
