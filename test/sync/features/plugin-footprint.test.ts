import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

interface Footprint {
  feature: string;
  own: string[];
  outside: string[];
  core: string[];
}

// The script docs/architecture.md quotes for each plug-in's cost to the rest of the code.
const report = JSON.parse(
  execFileSync(process.execPath, ["scripts/plugin-footprint.mjs"], { encoding: "utf8" }),
) as Footprint[];

describe("plug-in footprint (scripts/plugin-footprint.mjs)", () => {
  it("finds every feature folder, with the registry importing each", () => {
    const names = report.map((entry) => entry.feature);
    expect(names).toEqual(expect.arrayContaining(["acceptance", "notes", "project", "sla"]));
    for (const entry of report) expect(entry.outside).toContain("src/sync/features/registry.ts");
  });

  // A feature the core imports is spliced in, not plugged in: the core loops over the registry.
  it("no core file (intake, planner, drain, runner, records, context, state schema) imports a feature", () => {
    expect(report.filter((entry) => entry.core.length > 0)).toEqual([]);
  });

  // The conversation back's two capabilities: their own folder and config section, plus the
  // registry's line and the config schema's line.
  it("notes and project items are each imported outside their own modules by at most four files", () => {
    for (const name of ["notes", "project"]) {
      const entry = report.find((candidate) => candidate.feature === name);
      expect(entry?.outside.length).toBeLessThanOrEqual(4);
    }
  });
});
