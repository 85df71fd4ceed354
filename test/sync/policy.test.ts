import { describe, expect, it } from "vitest";
import {
  desiredIssueState,
  noIssueReason,
  policyFromConfig,
  routeFor,
  verdictFor,
} from "../../src/sync/plan/policy.js";
import type { ThreatView } from "../../src/sync/render/index.js";
import { makeConfig, REPO } from "./harness.js";

const view = (extra: Partial<ThreatView> = {}): ThreatView => ({
  id: "t",
  title: "x",
  description: null,
  severity: "high",
  severityRank: 3,
  module: "lcm",
  status: "unsolved",
  ageDays: 1,
  assetId: "a",
  moduleData: null,
  updatedAt: "u",
  ...extra,
});
const asset = (type: string) => ({ id: "a", name: "n", type });

describe("policy (the YAML's decisions)", () => {
  const policy = policyFromConfig(
    makeConfig({
      filters: {
        min_severity: "low",
        asset_types: { exclude: ["person"] },
        modules: { include: ["lcm", "dns"] },
      },
      routes: [
        { match: { module: ["dns"], asset_type: ["domain"] }, repository: "acme/dns", labels: ["dns-team"] },
        { match: { asset_type: ["tenant"] }, assignees: ["cloud-oncall"] },
      ],
    }),
  );

  it("filters: minimum severity, modules in, asset types out, first-seen statuses", () => {
    expect(noIssueReason(view(), asset("domain"), policy)).toBeNull();
    expect(noIssueReason(view({ severityRank: 0 }), asset("domain"), policy)).toBe("min_severity");
    expect(noIssueReason(view({ module: "web" }), asset("domain"), policy)).toBe("module");
    expect(noIssueReason(view(), asset("Person"), policy)).toBe("asset_type");
    expect(noIssueReason(view({ status: "solved" }), asset("domain"), policy)).toBe("status");
    expect(noIssueReason(view({ status: "pending" }), asset("domain"), policy)).toBeNull();
  });

  it("filters: a module or asset-type list not configured lets every module and asset type through (none too)", () => {
    const open = policyFromConfig(makeConfig({ filters: { min_severity: "low" } }));
    for (const module of ["web", "dns", null])
      for (const type of ["Person", "tenant", null]) {
        const on = type === null ? null : asset(type);
        expect(noIssueReason(view({ module }), on, open)).toBeNull();
      }
  });

  it("routes: every condition of a rule must hold; the first matching rule wins; none → the default repository", () => {
    expect(routeFor(view({ module: "dns" }), asset("domain"), policy)).toEqual({
      repo: "acme/dns",
      labels: ["dns-team"],
      assignees: [],
      placed: {
        index: 0,
        matched: [
          { key: "module", value: "dns" },
          { key: "asset_type", value: "domain" },
        ],
      },
    });
    expect(routeFor(view({ module: "dns" }), asset("ip"), policy).repo).toBe(REPO);
    expect(routeFor(view(), asset("tenant"), policy)).toEqual({
      repo: REPO,
      labels: [],
      assignees: ["cloud-oncall"],
      placed: { index: 1, matched: [{ key: "asset_type", value: "tenant" }] },
    });
    expect(routeFor(view(), null, policy)).toEqual({ repo: REPO, labels: [], assignees: [] });
  });

  it("platform status → issue state (contract): pending and unknown statuses leave the issue alone", () => {
    expect(desiredIssueState("unsolved")).toEqual({ state: "open", reason: null });
    expect(desiredIssueState("solved")).toEqual({ state: "closed", reason: "completed" });
    expect(desiredIssueState("accepted")).toEqual({ state: "closed", reason: "not_planned" });
    expect(desiredIssueState("pending")).toBeNull();
    expect(desiredIssueState("some_new_status")).toBeNull();
  });

  it("verdicts: solved for any close reason by default, unsolved for a reopen", () => {
    const defaults = policyFromConfig(makeConfig());
    expect(verdictFor("closed", "completed", defaults).status).toBe("solved");
    expect(verdictFor("closed", "not_planned", defaults).status).toBe("solved");
    expect(verdictFor("closed", null, defaults).status).toBe("solved");
    expect(verdictFor("reopened", null, defaults).status).toBe("unsolved");
  });
});
