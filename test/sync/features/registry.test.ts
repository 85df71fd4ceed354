import { describe, expect, it } from "vitest";
import { featuresFor } from "../../../src/sync/features/registry.js";
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
});
