import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

/** The measure of one new threat's walk (docs/architecture.md, "One threat's walk"), on the built engine. */
const SCRIPT = resolve("scripts/walk-one-threat.mjs");

/**
 * The script's `--list` output. Both cases read the same walk of the same seeded world, so the
 * script runs once per file: its answer does not depend on which case asks first.
 */
let walked: ReturnType<typeof spawnSync> | undefined;
function walkOnce(): { status: number | null; stdout: string; stderr: string } {
  walked ??= spawnSync(process.execPath, [SCRIPT, "--list"], { encoding: "utf8", timeout: 60_000 });
  return { status: walked.status, stdout: String(walked.stdout), stderr: String(walked.stderr) };
}

describe("scripts/walk-one-threat.mjs", () => {
  it("one new threat gets its issue and link in one cycle, planned at intake and once per drain round, its stored record read back with no check", () => {
    const result = walkOnce();
    expect(result.status, result.stderr).toBe(0);
    const walk = JSON.parse(result.stdout) as {
      issues_created: number;
      linked: boolean;
      threat_own_steps: number;
      threat_own: string[];
      plans: number;
      record_reads: number;
      record_checks: number;
    };
    expect(walk.issues_created).toBe(1);
    expect(walk.linked).toBe(true);
    // Intake (to queue it), then the drain's rounds: the create, the link, the plan that is empty.
    expect(walk.plans).toBe(4);
    // What the engine stored is read back as it wrote it: no record is checked again.
    expect(walk.record_checks).toBe(0);
    expect(walk.record_reads).toBeGreaterThan(0);
    expect(walk.threat_own).toHaveLength(walk.threat_own_steps);
    // The walk's bound on its own functions (docs/architecture.md, "One threat's walk", gives today's figure).
    expect(walk.threat_own_steps).toBeLessThanOrEqual(120);
  });

  it("a setting that is off costs the walk nothing, and no record is read twice where once serves", () => {
    const result = walkOnce();
    expect(result.status, result.stderr).toBe(0);
    const walk = JSON.parse(result.stdout) as { threat_own: string[]; record_reads: number };
    // No routes, no module or asset-type filter, no platform.ui_url, a cache far from its bounds.
    const idle = [
      "src/sync/plan/route-placed.ts:placementOf",
      "src/sync/plan/policy.ts:passes",
      "src/sync/render/default-body.ts:platformLink",
      "src/sync/records/threat-cache.ts:evict",
    ];
    expect(walk.threat_own.filter((step) => idle.includes(step))).toEqual([]);
    // No feature is configured: none is asked anything, only the registry finds none to ask.
    const features = walk.threat_own.filter((step) => step.startsWith("src/sync/features/"));
    expect(features.filter((step) => !step.startsWith("src/sync/features/registry.ts:"))).toEqual([]);
    // Once each: the stream's version check, intake's read, the queue's brief, the four plans, the
    // create's and the link's writes, the drain's refusal check and two commits.
    expect(walk.record_reads).toBeLessThanOrEqual(12);
  });
});
