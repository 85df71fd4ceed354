import { describe, expect, it } from "vitest";
import {
  featuresFor,
  markerNumberOf,
  pluggedFor,
  renderedFor,
  stepCommented,
} from "../../../src/sync/features/registry.js";
import type { Feature } from "../../../src/sync/features/types.js";
import type { FeatureAction } from "../../../src/sync/plan/plan.js";
import type { ThreatRecord } from "../../../src/sync/schema.js";
import { featured, recurredFromOf } from "../feature-fields.js";
import { makeConfig } from "../harness.js";

const HOOKS = ["record", "plan", "clock", "status", "actions", "beforeDrain", "check"];
const ISSUE = {
  repo: "acme/threats",
  number: 9,
  url: "https://github.test/acme/threats/issues/9",
  state: "open" as const,
  hash: "h",
};
const BASE = {
  issue: { title: "t", body: "<!-- threatbridge:threat=t -->\nbody", labels: [] },
  hash: "h",
};

/**
 * The core loops over the registry's features and never names one: a feature whose config section
 * is left out is not in the registry, so none of its hooks runs (contract: "off when left out").
 */
describe("the registry of features", () => {
  it("holds no feature when no feature's section is configured", () => {
    expect(featuresFor(makeConfig()).map((f) => f.name)).toEqual([]);
  });

  it("holds each feature whose section is configured, risk acceptance before the SLA", () => {
    const config = makeConfig({ sla: { critical: "2d" }, acceptance: {} });
    expect(featuresFor(config).map((f) => f.name)).toEqual(["acceptance", "sla"]);
    expect(featuresFor(makeConfig({ sla: { critical: "2d" } })).map((f) => f.name)).toEqual(["sla"]);
  });

  it("holds the project feature when github.project is set, though its section is nested in github", () => {
    const github = { token: "t", repository: "acme/threats", project: { owner: "acme", number: 7 } };
    expect(featuresFor(makeConfig({ github })).map((f) => f.name)).toEqual(["project"]);
  });

  it("lists, per hook, only the configured features that have it, so a feature switched off costs the core nothing", () => {
    const none = pluggedFor(makeConfig());
    for (const [hook, features] of Object.entries(none)) expect([hook, features]).toEqual([hook, []]);
    const sla = pluggedFor(makeConfig({ sla: { critical: "2d" } }));
    expect(sla.all.map((f) => f.name)).toEqual(["sla"]);
    expect(sla.viewOf.map((f) => f.name)).toEqual(["sla"]);
    expect(sla.decide).toEqual([]);
    const accepting = pluggedFor(makeConfig({ acceptance: {} }));
    expect(accepting.decide.map((f) => f.name)).toEqual(["acceptance"]);
    expect(accepting.plannedFromRecord.map((f) => f.name)).toEqual(["acceptance"]);
  });

  it("a feature has at most eight hooks, each a group of what the core asks (identity aside)", () => {
    const every = featuresFor(
      makeConfig({
        sla: { critical: "2d" },
        acceptance: {},
        recurrence: "new_issue",
        notes: {},
        github: { token: "t", repository: "acme/threats", project: { owner: "acme", number: 7 } },
      }),
    );
    const identity: ReadonlyArray<keyof Feature> = ["name", "configKey", "configured"];
    for (const feature of every) {
      const hooks = Object.keys(feature).filter((key) => !identity.includes(key as keyof Feature));
      expect(hooks.length).toBeLessThanOrEqual(8);
      for (const hook of hooks) expect([feature.name, HOOKS.includes(hook)]).toEqual([feature.name, true]);
    }
  });

  it("a plain threat asks no switched-off feature: its rendering is the core's, its marker number 1", () => {
    const off = makeConfig();
    const plain: ThreatRecord = {
      status: "unsolved",
      severity: 3,
      assetId: null,
      updatedAt: "2026-01-02T00:00:00Z",
      issue: ISSUE,
    };
    expect(renderedFor(off, plain, "t", BASE)).toBe(BASE);
    expect(markerNumberOf(off, plain)).toBe(1);
    expect(stepCommented(off, plain, "recur")).toBe(plain);
  });

  it("a later occurrence's issue keeps its own marker and first line with recurrence switched off (contract, Recurrence: a marker outlives a setting)", () => {
    const off = makeConfig();
    const later = featured({
      status: "unsolved",
      severity: 3,
      assetId: null,
      updatedAt: "2026-01-02T00:00:00Z",
      issue: ISSUE,
      occurrence: 2,
      recurredFrom: { repo: "acme/threats", number: 4 },
    });
    expect(markerNumberOf(off, later)).toBe(2);
    const shown = renderedFor(off, later, "t", BASE);
    expect(shown.issue.body).toContain("Recurrence of acme/threats#4");
    expect(shown.issue.body).toContain("<!-- threatbridge:threat=t occurrence=2 -->");
    expect(recurredFromOf(stepCommented(off, later, "recur"))?.noted).toBe(true);
  });

  it("is made once per config: the core asks it per threat", () => {
    const config = makeConfig({ sla: { critical: "2d" } });
    expect(pluggedFor(config)).toBe(pluggedFor(config));
    expect(featuresFor(config)).toBe(pluggedFor(config).all);
  });

  it("every plug-in step that writes says what its write would answer (asAsked), so that a dry run lists what follows it in the same cycle; a step without it writes nothing a dry run lists", () => {
    const github = { token: "t", repository: "acme/threats", project: { owner: "acme", number: 7 } };
    const every = makeConfig({
      sla: { critical: "2d" },
      acceptance: {},
      recurrence: "new_issue",
      notes: {},
      github,
    });
    const features = featuresFor(every);
    expect(features.map((f) => f.name).sort()).toEqual([
      "acceptance",
      "notes",
      "project",
      "recurrence",
      "sla",
    ]);
    let steps = 0;
    for (const feature of features) {
      for (const [step, module] of Object.entries(feature.actions?.modules ?? {})) {
        // What each step's `describe` reads, so one sample serves every step.
        const fields = {
          kind: "feature" as const,
          feature: feature.name,
          step,
          threatId: "t",
          repo: "acme/threats",
          number: 7,
          values: { Severity: "high" },
          person: { login: "alice" },
          section: "",
          text: "",
          labels: [],
          assignees: [],
          previous: { repo: "acme/threats", number: 6 },
          occurrence: 2,
          title: "SLA 2026-01-04",
          label: "sla-breached",
        };
        const sample: FeatureAction = fields;
        steps += 1;
        const listed = module.describe(sample).hidden !== true;
        expect({ step: `${feature.name}.${step}`, asAsked: module.asAsked !== undefined }).toEqual({
          step: `${feature.name}.${step}`,
          asAsked: listed,
        });
      }
    }
    expect(steps).toBeGreaterThanOrEqual(12);
  });
});
