import { describe, expect, test } from "vitest";
import { renderIssue, withLabels } from "../../../src/sync/render/index.js";
import { ASSET, OPTIONS, threat } from "./fixtures.js";

/** A new issue's labels: the connector's own, and the route's (plan.ts `create`). */
function labels(overrides: Parameters<typeof threat>[0], routeLabels: string[] = []): string[] {
  return withLabels(renderIssue(threat(overrides), ASSET, OPTIONS).labels, routeLabels);
}

describe("labels", () => {
  test("an update's labels are the connector's own only: a route's labels are the new issue's", () => {
    expect(renderIssue(threat({ severity: "Critical", module: "LCM" }), ASSET, OPTIONS).labels).toEqual([
      "module:lcm",
      "severity:critical",
      "threatbridge",
    ]);
  });

  test("a new issue: managed, severity and module (lower-cased), and the route's labels, sorted", () => {
    expect(labels({ severity: "Critical", module: "LCM" }, ["urgent", "team-a"])).toEqual([
      "module:lcm",
      "severity:critical",
      "team-a",
      "threatbridge",
      "urgent",
    ]);
  });

  test("no label follows the platform status, so a verdict's echo costs no write", () => {
    expect(labels({ status: "pending" })).toEqual(labels({ status: "unsolved" }));
    expect(labels({ status: "pending" })).not.toContain("pending");
  });

  test("duplicates are dropped ignoring case (GitHub compares label names that way)", () => {
    expect(labels({}, ["Urgent", "urgent", "THREATBRIDGE", "severity:HIGH", " urgent "])).toEqual([
      "Urgent",
      "module:vulnerability",
      "severity:high",
      "threatbridge",
    ]);
  });

  test("at most 50 characters, commas and line breaks replaced, empty labels dropped", () => {
    const result = labels({ module: "web, api\r\nand more ".repeat(10) }, ["", "   ", "a,b"]);
    expect(result).toContain("a b");
    expect(result).not.toContain("");
    const moduleLabel = result.find((l) => l.startsWith("module:"));
    expect(moduleLabel).toBe("module:web api and more web api and more web api a");
    for (const label of result) expect(label.length).toBeLessThanOrEqual(50);
  });

  test("a label is not cut inside a surrogate pair", () => {
    const result = labels({ module: `${"x".repeat(42)}🚨🚨` });
    expect(result).toContain(`module:${"x".repeat(42)}`);
  });
});
