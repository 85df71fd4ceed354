import { describe, expect, test } from "vitest";
import { findMarkerIds, markerFor, renderIssue } from "../../../src/sync/render/index.js";
import { ASSET, ASSET_ID, OPTIONS, THREAT_ID, threat } from "./fixtures.js";

const FOOTER =
  "---\n\n_This issue is managed by threatbridge and mirrors a threat on the security platform. " +
  "Closing it sends a verdict on the threat to the platform; reopening it sends the threat back to unsolved._";

describe("default rendering", () => {
  test("a normal threat: title, summary table, description, link, footer and marker", () => {
    const issue = renderIssue(threat(), ASSET, OPTIONS);
    expect(issue.title).toBe("[High] Outdated TLS configuration — shop.example.com");
    expect(issue.body).toBe(
      [
        "| Field | Value |",
        "|---|---|",
        "| Title | Outdated TLS configuration |",
        "| Severity | high |",
        "| Module | vulnerability |",
        "| Asset | shop.example.com |",
        "| Asset type | domain |",
        "| Age | 12 days |",
        `| Threat ID | ${THREAT_ID} |`,
        `| Asset ID | ${ASSET_ID} |`,
        "",
        "### Description",
        "",
        "The server accepts TLS 1.0.\\",
        "Disable it.",
        "",
        `[Open this threat in the platform](https://app.example.com/threats/${THREAT_ID})`,
        "",
        FOOTER,
        "",
        `<!-- threatbridge:threat=${THREAT_ID} -->`,
      ].join("\n"),
    );
    expect(issue.labels).toEqual(["module:vulnerability", "severity:high", "threatbridge"]);
    expect(issue.warnings).toEqual([]);
  });

  test("an lcm threat: module_data flattened in the order given, arrays joined, nulls left out", () => {
    const moduleData = {
      cves: ["CVE-2024-1234", "CVE-2024-5678"],
      product: { name: "nginx", version: "1.18.0", vendor: null },
      end_of_life: "2024-04-01",
      ports: [443, 8443],
      findings: [{ path: "/admin", code: 200 }, { path: "/old" }],
      score: 7.5,
      exploited: false,
      nothing: null,
      empty: [],
    };
    const body = renderIssue(threat({ module: "lcm", moduleData }), ASSET, OPTIONS).body;
    const section = body.slice(body.indexOf("### Module data"), body.indexOf("[Open this threat"));
    expect(section).toBe(
      [
        "### Module data",
        "",
        "| Field | Value |",
        "|---|---|",
        "| cves | CVE-2024-1234, CVE-2024-5678 |",
        "| product.name | nginx |",
        "| product.version | 1.18.0 |",
        "| end\\_of\\_life | 2024-04-01 |",
        "| ports | 443, 8443 |",
        "| findings\\[0\\].path | /admin |",
        "| findings\\[0\\].code | 200 |",
        "| findings\\[1\\].path | /old |",
        "| score | 7.5 |",
        "| exploited | false |",
        "",
        "",
      ].join("\n"),
    );
  });

  test("missing fields: the title falls back to the threat id, the table shows dashes", () => {
    const bare = threat({
      title: null,
      description: null,
      severity: null,
      severityRank: null,
      module: null,
      ageDays: null,
      assetId: null,
    });
    const issue = renderIssue(bare, null, { managedLabel: "threatbridge" });
    expect(issue.title).toBe(THREAT_ID);
    expect(issue.body).toContain("| Title | — |\n| Severity | — |");
    expect(issue.body).toContain("| Asset | — |\n| Asset type | — |\n| Age | — |");
    expect(issue.body).toContain("### Description\n\n_No description._");
    expect(issue.body).not.toContain("Open this threat");
    expect(issue.body.endsWith(`\n${markerFor(THREAT_ID)}`)).toBe(true);
    expect(issue.labels).toEqual(["threatbridge"]);
  });

  test("an asset without a name leaves the title without the asset part", () => {
    const issue = renderIssue(threat(), { id: ASSET_ID, name: null, type: "ip" }, OPTIONS);
    expect(issue.title).toBe("[High] Outdated TLS configuration");
  });

  test("the same input renders byte for byte the same", () => {
    const a = renderIssue(threat({ moduleData: { b: 1, a: 2 } }), ASSET, OPTIONS);
    const b = renderIssue(threat({ moduleData: { b: 1, a: 2 } }), ASSET, OPTIONS);
    expect(b).toEqual(a);
  });

  test("the marker round-trips through findMarkerIds", () => {
    const body = renderIssue(threat(), ASSET, OPTIONS).body;
    expect(findMarkerIds(body)).toEqual([THREAT_ID]);
    expect(markerFor(THREAT_ID)).toBe(`<!-- threatbridge:threat=${THREAT_ID} -->`);
  });

  test("an odd id cannot end the marker comment early or fake a second marker", () => {
    const id = "x --> <!-- threatbridge:threat=y -->";
    expect(markerFor(id)).not.toMatch(/-->.*-->/);
    expect(findMarkerIds(markerFor(id))).toEqual([id]);
  });

  test("the platform link percent-encodes the id", () => {
    const body = renderIssue(threat({ id: "a b)(#1" }), ASSET, OPTIONS).body;
    expect(body).toContain("(https://app.example.com/threats/a%20b%29%28%231)");
  });
});

describe("GitHub limits", () => {
  test("title: at most 256 characters, cut with an ellipsis, severity and asset kept", () => {
    const issue = renderIssue(threat({ title: "x".repeat(1_000) }), ASSET, OPTIONS);
    expect(issue.title.length).toBe(256);
    expect(issue.title.startsWith("[High] xxx")).toBe(true);
    expect(issue.title.endsWith("x… — shop.example.com")).toBe(true);
  });

  test("body: a huge description is cut with a visible note, never the marker", () => {
    const issue = renderIssue(threat({ description: "word ".repeat(100_000) }), ASSET, OPTIONS);
    expect(issue.body.length).toBeLessThanOrEqual(65_536);
    expect(issue.body).toContain("_(truncated)_");
    expect(issue.body.endsWith(`\n${markerFor(THREAT_ID)}`)).toBe(true);
  });

  test("body: huge description and module data share the room, both marked as truncated", () => {
    const moduleData = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, "v".repeat(50)]));
    const issue = renderIssue(threat({ description: "<&>".repeat(50_000), moduleData }), ASSET, OPTIONS);
    expect(issue.body.length).toBeLessThanOrEqual(65_536);
    expect(issue.body).toMatch(/### Description\n\n(&lt;|&amp;|&gt;)+\n\n_\(truncated\)_/);
    expect(issue.body).toMatch(/_\(truncated: \d+ more fields not shown\)_/);
    expect(issue.body.indexOf("| k0 | v")).toBeGreaterThan(0);
    expect(issue.body.endsWith(`\n${markerFor(THREAT_ID)}`)).toBe(true);
  });

  test("body: a short description keeps all of it when only the module data is huge", () => {
    const moduleData = { blob: "y".repeat(200_000) };
    const issue = renderIssue(threat({ moduleData }), ASSET, OPTIONS);
    expect(issue.body).toContain("The server accepts TLS 1.0.\\\nDisable it.");
    expect(issue.body).toContain("… (truncated) |");
    expect(issue.body.length).toBeLessThanOrEqual(65_536);
  });
});
