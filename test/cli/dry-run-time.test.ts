import { describe, expect, it } from "vitest";
import { collectingSink, planTimeText } from "../../src/cli/dry-run-output.js";

/** The dry run's time at the configured write budget: GitHub's writes only, named by action. */

const BUDGET = { perMinute: 80, perHour: 500, minIntervalMs: 1000 };

describe("sync --dry-run: the plan's time at the write budget", () => {
  it("4,015 creates at GitHub.com's limits: about 8 hours, and the platform's links are not counted", () => {
    const sink = collectingSink();
    for (let i = 0; i < 4015; i += 1) {
      sink.print({ action: "create", threat_id: `t-${i}` }, true);
      sink.print({ action: "link", threat_id: `t-${i}` }, false);
    }
    sink.print({ action: "error", threat_id: "t-x", detail: "read failed" });
    expect(sink.records).toHaveLength(2 * 4015 + 1);
    expect(planTimeText({ githubWrites: sink.githubWrites, budget: BUDGET })).toBe(
      "4,015 creates: about 8 h at 80/min, 500/h, 1 s apart",
    );
  });

  it("several kinds are summed and named in the plan's order; one a second binds a short plan", () => {
    const githubWrites = new Map([
      ["comment", 2],
      ["create", 30],
      ["close", 8],
    ]);
    expect(planTimeText({ githubWrites, budget: BUDGET })).toBe(
      "40 GitHub writes (close 8, create 30, comment 2): about 39 s at 80/min, 500/h, 1 s apart",
    );
  });

  it("no budget set, or no GitHub write at all, says so", () => {
    const one = new Map([["attach", 1]]);
    expect(planTimeText({ githubWrites: one, budget: { perMinute: 0, perHour: 0, minIntervalMs: 0 } })).toBe(
      "1 attach: no write budget set: as fast as GitHub answers",
    );
    expect(planTimeText({ githubWrites: new Map([["update", 3]]), budget: BUDGET })).toBe(
      "3 updates: about 2 s at 80/min, 500/h, 1 s apart",
    );
    expect(planTimeText({ githubWrites: new Map(), budget: BUDGET })).toBe(
      "no GitHub writes: the write budget does not bind",
    );
  });
});
