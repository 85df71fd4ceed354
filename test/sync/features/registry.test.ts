import { describe, expect, it } from "vitest";
import { featuresFor, pluggedFor } from "../../../src/sync/features/registry.js";
import { makeConfig } from "../harness.js";

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

  it("is made once per config: the core asks it per threat", () => {
    const config = makeConfig({ sla: { critical: "2d" } });
    expect(pluggedFor(config)).toBe(pluggedFor(config));
    expect(featuresFor(config)).toBe(pluggedFor(config).all);
  });
});
