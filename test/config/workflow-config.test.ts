import { describe, expect, it } from "vitest";
import { endOfTypedDay, parseDuration, utcDay } from "../../src/shared/index.js";
import { errorOf, minimalPlus, parse, problemAt } from "./helpers.js";

/**
 * Contract, "Workflow: groups, SLAs, expiring acceptance, recurrence": every key off unless
 * configured; durations are strings with a unit; config errors name file, line and key. The
 * minimal file ends on line 8, so the first extra line is line 9.
 */

describe("workflow settings are off unless configured", () => {
  it("no grouping, no SLA, no acceptance; recurrence reopens", () => {
    const { config } = parse(minimalPlus());
    expect(config.grouping).toBeUndefined();
    expect(config.sla).toBeUndefined();
    expect(config.acceptance).toBeUndefined();
    expect(config.recurrence).toBe("reopen");
  });

  it("the contract's example block reads as written, with its defaults", () => {
    const { config } = parse(
      minimalPlus(
        "grouping:",
        "  by: cve",
        "  min_members: 2",
        "sla:",
        "  critical: 7d",
        "  low: 180d",
        "  milestones: weekly",
        "acceptance:",
        "  label: risk-accepted",
        "recurrence: new_issue",
      ),
    );
    expect(config.grouping).toEqual({ by: "cve", mode: "parent", min_members: 2 });
    expect(config.sla).toEqual({
      critical: "7d",
      low: "180d",
      breach_label: "sla:breached",
      milestones: "weekly",
      restart_on_reopen: false,
    });
    expect(config.acceptance).toMatchObject({
      label: "risk-accepted",
      default: "90d",
      max: "365d",
      warn_before: "7d",
    });
    expect(config.recurrence).toBe("new_issue");
  });
});

describe("workflow config errors name file, line and key", () => {
  it("a duration without a unit", () => {
    const problem = problemAt(errorOf(minimalPlus("sla:", "  critical: 7")), "sla.critical");
    expect(problem.line).toBe(10);
    expect(problem.message).toMatch(/needs a unit/);
  });

  it("a duration with an unknown unit", () => {
    const problem = problemAt(errorOf(minimalPlus("acceptance:", "  default: 3mo")), "acceptance.default");
    expect(problem.line).toBe(10);
    expect(problem.message).toMatch(/not a duration/);
  });

  it("single mode together with min_members", () => {
    const error = errorOf(minimalPlus("grouping:", "  by: asset", "  mode: single", "  min_members: 3"));
    const problem = problemAt(error, "grouping.min_members");
    expect(problem.line).toBe(12);
    expect(problem.message).toMatch(/parent mode only/);
  });

  it("an SLA for an unknown severity", () => {
    const error = errorOf(minimalPlus("sla:", "  urgent: 7d"));
    expect(error.message).toContain("test.yaml");
    expect(error.message).toMatch(/urgent/);
    expect(error.problems.some((p) => p.line === 10)).toBe(true);
  });

  it("an unknown group key and a group title that does not parse", () => {
    expect(problemAt(errorOf(minimalPlus("grouping:", "  by: team")), "grouping.by").line).toBe(10);
    const bad = errorOf(minimalPlus("grouping:", "  by: cve", '  title: "{% if %}"'));
    expect(problemAt(bad, "grouping.title").message).toMatch(/invalid template/);
  });

  it("acceptance: a default longer than max is valid (capped at max when used, not refused)", () => {
    const { config } = parse(minimalPlus("acceptance:", "  default: 400d", "  max: 365d"));
    expect(config.acceptance).toMatchObject({ default: "400d", max: "365d" });
  });
});

describe("durations and typed dates (contract: units s m h d w; dates are UTC, end of that day)", () => {
  it("reads each unit and refuses what is not a duration", () => {
    expect(parseDuration("10s")).toBe(10_000);
    expect(parseDuration("36h")).toBe(36 * 3_600_000);
    expect(parseDuration("2w")).toBe(14 * 86_400_000);
    for (const bad of ["90", "-1d", "1.5d", "d", "90 days", ""]) expect(parseDuration(bad)).toBeNull();
  });

  it("a typed date is the end of that UTC day; an impossible date is refused", () => {
    expect(endOfTypedDay("2026-12-31")).toBe(Date.parse("2026-12-31T23:59:59.999Z"));
    expect(endOfTypedDay("2026-02-30")).toBeNull();
    expect(endOfTypedDay("31/12/2026")).toBeNull();
    expect(utcDay(Date.parse("2026-12-31T23:59:59.999Z"))).toBe("2026-12-31");
  });
});

describe("config/threatbridge.yaml's commented workflow block", () => {
  it("validates once uncommented, with the contract's values", async () => {
    const { readFileSync } = await import("node:fs");
    const text = readFileSync(new URL("../../config/threatbridge.yaml", import.meta.url), "utf8");
    const lines = text.split("\n");
    const block: string[] = [];
    for (const key of ["grouping", "sla", "acceptance"]) {
      const start = lines.indexOf(`# ${key}:`);
      expect(start, `# ${key}: in the shipped example`).toBeGreaterThan(0);
      for (let i = start; i < lines.length && lines[i]!.startsWith("# "); i += 1)
        block.push(lines[i]!.slice(2));
    }
    const { config } = parse(minimalPlus(...block));
    expect(config.grouping).toMatchObject({ by: "cve", mode: "parent", min_members: 2 });
    expect(config.sla).toMatchObject({
      critical: "7d",
      high: "30d",
      medium: "90d",
      low: "180d",
      milestones: "none",
    });
    expect(config.acceptance).toMatchObject({
      label: "risk-accepted",
      default: "90d",
      max: "365d",
      warn_before: "7d",
    });
  });
});
