import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../../src/config/index.js";
import { Threat } from "../../../src/platform/index.js";
import { toThreatView } from "../../../src/sync/render/normalize.js";

const ID = "6f1c2b7e-3d4a-4b5c-8d9e-0a1b2c3d4e5f";

/** Contract, "Configuration": `fields` are dotted paths into the threat JSON. */
describe("fields: where the threat's unnamed fields are", () => {
  const fields = (lines: string[]) =>
    parseConfigText(
      [
        "platform: { base_url: 'http://p', token_url: 'http://p/t', client_id: a, client_secret: b }",
        "github: { token: t, repository: acme/x }",
        "fields:",
        "  threat:",
        ...lines,
      ].join("\n"),
      "test.yaml",
      {},
    ).config.fields.threat;

  it("a dotted path reaches into nested objects and, by index, into arrays; a missing step reads as absent", () => {
    const threat = Threat.parse({
      id: ID,
      status: "unsolved",
      updated_at: "2026-11-01T00:00:00Z",
      details: { headline: "Exposed admin panel" },
      ratings: [{ level: "high" }],
      targets: [],
      tags: ["web"],
    });
    const view = toThreatView(
      threat,
      fields([
        "    title: details.headline",
        "    severity: ratings.0.level",
        "    asset_id: targets.0.id",
        "    module: tags.0",
      ]),
    );
    expect(view).toMatchObject({
      title: "Exposed admin panel",
      severity: "high",
      severityRank: 3,
      module: "web",
      assetId: null,
    });
  });
});
