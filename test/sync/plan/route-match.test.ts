import { describe, expect, it } from "vitest";
import { globMatches, wherePaths } from "../../../src/sync/plan/route-match.js";
import { policyFromConfig, routeFor, type AssetValues } from "../../../src/sync/plan/policy.js";
import { pickValues } from "../../../src/shared/kept-values.js";
import { toThreatView } from "../../../src/sync/render/normalize.js";
import type { AssetView, ThreatView } from "../../../src/sync/render/index.js";
import { makeConfig, REPO } from "../harness.js";

/**
 * Contract, `routes`: `asset_name` globs (`*` and `?`, case-insensitive, the whole name) and
 * `where` (dotted paths into the threat's or its asset's JSON, any-of values; a list in the data
 * matches if it holds any of them; an absent path never matches); every key a `match` gives must
 * hold; the first matching rule wins.
 */

const view = (extra: Partial<ThreatView> = {}): ThreatView => ({
  id: "t",
  title: "x",
  description: null,
  severity: "high",
  severityRank: 3,
  module: "vulnerability",
  status: "unsolved",
  ageDays: 1,
  assetId: "a",
  moduleData: null,
  updatedAt: "u",
  ...extra,
});
const asset = (name: string | null, type = "domain"): AssetView => ({ id: "a", name, type });

describe("asset_name globs: * and ? only, case-insensitive, the whole name", () => {
  it("* is any run of characters, dots and none included", () => {
    expect(globMatches("*.payments.acme.test", "api.payments.acme.test")).toBe(true);
    expect(globMatches("*.payments.acme.test", "a.b.payments.acme.test")).toBe(true);
    expect(globMatches("*.payments.acme.test", ".payments.acme.test")).toBe(true);
    expect(globMatches("*", "")).toBe(true);
  });

  it("? is exactly one character", () => {
    expect(globMatches("pay-db-??", "pay-db-01")).toBe(true);
    expect(globMatches("pay-db-??", "pay-db-1")).toBe(false);
    expect(globMatches("pay-db-??", "pay-db-001")).toBe(false);
    expect(globMatches("h?st", "hðst")).toBe(true);
  });

  it("case is ignored, on both sides", () => {
    expect(globMatches("*.Payments.ACME.test", "API.payments.acme.TEST")).toBe(true);
  });

  it("anchored: the glob covers the whole name, not a part of it", () => {
    expect(globMatches("*.payments.acme.test", "api.payments.acme.test.evil.example")).toBe(false);
    expect(globMatches("payments", "old-payments-db")).toBe(false);
    expect(globMatches("pay-db-??", "xpay-db-01")).toBe(false);
  });

  it("every other character is itself: . + ( ) $ ^ | / are not patterns", () => {
    expect(globMatches("a.b", "aXb")).toBe(false);
    expect(globMatches("a+(b)$^|/c", "a+(b)$^|/c")).toBe(true);
  });
});

describe("where: dotted paths into the threat's or its asset's JSON, any-of values", () => {
  const policy = policyFromConfig(
    makeConfig({
      routes: [
        {
          match: { where: { "asset.environment": ["prod", "production"] } },
          repository: "acme/prod",
        },
        { match: { where: { "threat.module_data.port": ["443", 8443] } }, repository: "acme/tls" },
        { match: { where: { "asset.tags": ["pci"] } }, repository: "acme/pci" },
        { match: { where: { "threat.module_data.exposed": [true] } }, repository: "acme/exposed" },
      ],
    }),
  );
  const threatOf = (json: Record<string, unknown>): ThreatView =>
    toThreatView(
      {
        id: "t",
        status: "unsolved",
        updated_at: "2026-01-01T00:00:00Z",
        external_references: [],
        ...json,
      },
      makeConfig().fields.threat,
      policy.wherePaths.threat,
    );
  const values = (json: Record<string, unknown>): AssetValues =>
    pickValues(json, "asset", policy.wherePaths.asset);

  it("the routes' paths are what intake keeps, by the JSON they start in", () => {
    expect(wherePaths(policy.routes)).toEqual({
      threat: ["threat.module_data.exposed", "threat.module_data.port"],
      asset: ["asset.environment", "asset.tags"],
    });
  });

  it("an asset path matches when its value is one of the rule's", () => {
    const route = routeFor(view(), asset("db"), policy, values({ environment: "production" }));
    expect(route.repo).toBe("acme/prod");
    expect(route.placed).toEqual({ index: 0, matched: [{ key: "asset.environment", value: "production" }] });
  });

  it("strings compare exactly, case included", () => {
    expect(routeFor(view(), asset("db"), policy, values({ environment: "PROD" })).repo).toBe(REPO);
  });

  it("a threat path reads the threat's JSON (module_data and any other field)", () => {
    const threat = threatOf({ module_data: { port: 8443 } });
    expect(routeFor(threat, asset("db"), policy).repo).toBe("acme/tls");
  });

  it("a number in the data equals the string of its digits in the YAML, and the other way round", () => {
    expect(routeFor(threatOf({ module_data: { port: 443 } }), asset("db"), policy).repo).toBe("acme/tls");
    expect(routeFor(threatOf({ module_data: { port: "8443" } }), asset("db"), policy).repo).toBe("acme/tls");
    expect(routeFor(threatOf({ module_data: { port: 80 } }), asset("db"), policy).repo).toBe(REPO);
  });

  it("booleans equal booleans only", () => {
    expect(routeFor(threatOf({ module_data: { exposed: true } }), asset("db"), policy).repo).toBe(
      "acme/exposed",
    );
    expect(routeFor(threatOf({ module_data: { exposed: "true" } }), asset("db"), policy).repo).toBe(REPO);
  });

  it("a list in the data matches when it holds any of the values", () => {
    const route = routeFor(view(), asset("db"), policy, values({ tags: ["web", "pci"] }));
    expect(route.repo).toBe("acme/pci");
    expect(route.placed?.matched).toEqual([{ key: "asset.tags", value: "pci" }]);
    expect(routeFor(view(), asset("db"), policy, values({ tags: ["web"] })).repo).toBe(REPO);
  });

  it("an absent path never matches: no field, a null, an object, no asset at all", () => {
    expect(routeFor(view(), asset("db"), policy, values({})).repo).toBe(REPO);
    expect(routeFor(view(), asset("db"), policy, values({ environment: null })).repo).toBe(REPO);
    expect(routeFor(view(), asset("db"), policy, values({ environment: { name: "prod" } })).repo).toBe(REPO);
    expect(routeFor(view(), null, policy).repo).toBe(REPO);
    expect(routeFor(threatOf({}), asset("db"), policy).repo).toBe(REPO);
  });
});

describe("every key a match gives must hold; values are any-of; the first matching rule wins", () => {
  const policy = policyFromConfig(
    makeConfig({
      routes: [
        {
          match: {
            severity: ["critical"],
            asset_name: ["*.payments.acme.test", "pay-db-??"],
            where: { "asset.environment": ["prod"] },
          },
          repository: "acme/payments-urgent",
        },
        {
          match: {
            asset_name: ["*.payments.acme.test", "pay-db-??"],
            where: { "asset.environment": ["prod"] },
          },
          repository: "acme/payments",
          labels: ["payments"],
          assignees: ["payments-oncall"],
        },
        { match: { asset_name: ["*.payments.acme.test"] }, repository: "acme/payments-staging" },
        { match: {}, repository: "acme/everything-else" },
      ],
    }),
  );
  const prod = pickValues({ environment: "prod" }, "asset", policy.wherePaths.asset);
  const staging = pickValues({ environment: "staging" }, "asset", policy.wherePaths.asset);

  it("all keys hold: the rule matches, and says what of it matched", () => {
    const route = routeFor(view(), asset("PAY-DB-07"), policy, prod);
    expect(route).toEqual({
      repo: "acme/payments",
      labels: ["payments"],
      assignees: ["payments-oncall"],
      placed: {
        index: 1,
        matched: [
          { key: "asset_name", value: "pay-db-??" },
          { key: "asset.environment", value: "prod" },
        ],
      },
    });
  });

  it("one key fails: the rule does not match, and the next one is asked", () => {
    expect(routeFor(view(), asset("api.payments.acme.test"), policy, staging).repo).toBe(
      "acme/payments-staging",
    );
    expect(routeFor(view(), asset("api.shop.acme.test"), policy, prod).repo).toBe("acme/everything-else");
  });

  it("the first matching rule wins, even when a later one matches too", () => {
    const critical = view({ severity: "critical", severityRank: 4 });
    expect(routeFor(critical, asset("api.payments.acme.test"), policy, prod).placed?.index).toBe(0);
  });

  it("match {} matches every threat, and says so with the rule alone", () => {
    const route = routeFor(view(), asset(null), policy);
    expect(route.repo).toBe("acme/everything-else");
    expect(route.placed).toEqual({ index: 3, matched: [] });
  });

  it("no rule matches: the default repository, nothing added, nothing placed", () => {
    const none = policyFromConfig(makeConfig({ routes: [{ match: { asset_name: ["x"] } }] }));
    expect(routeFor(view(), asset("y"), none)).toEqual({ repo: REPO, labels: [], assignees: [] });
  });
});
