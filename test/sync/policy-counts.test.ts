import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { noIssueReason, policyFromConfig } from "../../src/sync/plan/policy.js";
import { countNoIssue } from "../../src/sync/plan/policy-counts.js";
import type { ThreatView } from "../../src/sync/render/index.js";
import { makeConfig } from "./harness.js";
import { SEVERITIES } from "../../src/shared/severity.js";

const threat = fc.record({
  rank: fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }),
  module: fc.option(fc.constantFrom("lcm", "vm", "cspm"), { nil: null }),
  status: fc.constantFrom("unsolved", "pending", "solved", "false_positive", "accepted", "other"),
  assetType: fc.option(fc.constantFrom("server", "laptop"), { nil: null }),
});

function view(t: { rank: number | null; module: string | null; status: string }): ThreatView {
  return {
    id: "t",
    title: null,
    description: null,
    severity: t.rank === null ? null : (SEVERITIES[t.rank] ?? null),
    severityRank: t.rank,
    module: t.module,
    status: t.status,
    ageDays: null,
    assetId: "a",
    moduleData: null,
    updatedAt: "u",
  };
}

describe("dry run: why a threat gets no issue", () => {
  const policy = policyFromConfig(
    makeConfig({
      filters: { min_severity: "medium", modules: { exclude: ["vm"] }, asset_types: { include: ["server"] } },
    }),
  );

  it("the reason is the first filter the threat fails, in the contract's order, and none means an issue", () => {
    // An independent statement of this config's filters: first-seen status, min_severity medium,
    // module `vm` excluded, asset type `server` only; an unknown severity counts as informational.
    const expected = (t: {
      rank: number | null;
      module: string | null;
      status: string;
      assetType: string | null;
    }): string | null =>
      !policy.createForStatuses.includes(t.status)
        ? "status"
        : (t.rank ?? 0) < 2
          ? "min_severity"
          : t.module === "vm"
            ? "module"
            : t.assetType !== "server"
              ? "asset_type"
              : null;
    fc.assert(
      fc.property(threat, (t) => {
        const asset = t.assetType === null ? null : { id: "a", name: null, type: t.assetType };
        expect(noIssueReason(view(t), asset, policy)).toBe(expected(t));
      }),
      { numRuns: 500 },
    );
  });

  it("counts first-seen statuses by status, then severity, module and asset type", () => {
    const server = { id: "a", name: null, type: "server" };
    const counts = countNoIssue(
      [
        { view: view({ rank: 4, module: "lcm", status: "solved" }), asset: server },
        { view: view({ rank: 4, module: "lcm", status: "false_positive" }), asset: server },
        { view: view({ rank: 1, module: "lcm", status: "unsolved" }), asset: server },
        { view: view({ rank: 4, module: "vm", status: "unsolved" }), asset: server },
        { view: view({ rank: 4, module: "lcm", status: "unsolved" }), asset: { ...server, type: "laptop" } },
        { view: view({ rank: 4, module: "lcm", status: "unsolved" }), asset: server },
      ],
      policy,
    );
    expect(counts).toEqual({
      status: { solved: 1, false_positive: 1 },
      min_severity: 1,
      module: 1,
      asset_type: 1,
    });
  });
});
