import { describe, expect, it } from "vitest";
import { isOwnLabel, moduleLabel, severityLabel } from "../../src/shared/index.js";
import { labelsFor, withLabels } from "../../src/sync/render/labels.js";
import type { ThreatView } from "../../src/sync/render/index.js";

const THREAT: ThreatView = {
  id: "3f2b8c1e-9a4d-4e6f-8b2a-1c3d5e7f9a0b",
  title: "t",
  description: null,
  severity: "High",
  severityRank: 3,
  module: "DNS",
  status: "unsolved",
  ageDays: null,
  assetId: null,
  moduleData: null,
  updatedAt: "2026-01-01T00:00:00Z",
};

describe("the connector's own labels (contract: managed label; people's labels are kept)", () => {
  it("every label the renderer writes on an update is one the update recognises as its own, so none is left behind", () => {
    const written = labelsFor(THREAT, "threatbridge");
    expect(written).toEqual(["module:dns", "severity:high", "threatbridge"]);
    for (const label of written) expect(isOwnLabel(label, "threatbridge")).toBe(true);
  });

  it("a route's label is not the connector's own: given at creation, a person's later change of it stands", () => {
    const created = withLabels(labelsFor(THREAT, "threatbridge"), ["Urgent", "team:infra"]);
    expect(created).toEqual(["module:dns", "severity:high", "team:infra", "threatbridge", "Urgent"].sort());
    expect(isOwnLabel("Urgent", "threatbridge")).toBe(false);
    expect(isOwnLabel("team:infra", "threatbridge")).toBe(false);
  });

  it("a person's label is not the connector's, and names compare case-insensitively as GitHub does", () => {
    expect(isOwnLabel("needs-triage", "threatbridge")).toBe(false);
    expect(isOwnLabel("ThreatBridge", "threatbridge")).toBe(true);
    expect(isOwnLabel(severityLabel("critical").toUpperCase(), "threatbridge")).toBe(true);
    expect(isOwnLabel(moduleLabel("web"), "tb")).toBe(true);
  });

  it("the pending label earlier versions wrote is still removed as the connector's own", () => {
    expect(isOwnLabel("pending", "threatbridge")).toBe(true);
  });
});
