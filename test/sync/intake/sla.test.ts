import { describe, expect, it } from "vitest";
import type { Threat } from "../../../src/platform/index.js";
import { detectedAtMs, slaDurationMs } from "../../../src/sync/intake/sla.js";
import { makeConfig } from "../harness.js";

/** Contract, "Workflow" → "SLA": the start is `fields.threat.detected_at` when configured and parseable. */

const threat = (extra: Record<string, unknown>): Threat =>
  ({ id: "t", status: "unsolved", updated_at: "2026-11-25T00:00:00Z", ...extra }) as unknown as Threat;

describe("the SLA's inputs from the config and the threat", () => {
  it("detected_at: an ISO time is the start; anything else (a date alone, a number, missing) is told and falls back", () => {
    const config = makeConfig({ fields: { threat: { detected_at: "meta.first_seen" } } });
    const told: unknown[] = [];
    const note = (v: unknown): void => {
      told.push(v);
    };
    expect(detectedAtMs(config, threat({ meta: { first_seen: "2026-11-01T08:00:00Z" } }), note)).toBe(
      Date.parse("2026-11-01T08:00:00Z"),
    );
    expect(detectedAtMs(config, threat({ meta: { first_seen: "2026-11-01" } }), note)).toBeNull();
    expect(detectedAtMs(config, threat({ meta: { first_seen: 1_700_000_000 } }), note)).toBeNull();
    expect(detectedAtMs(config, threat({}), note)).toBeNull();
    expect(told).toEqual(["2026-11-01", 1_700_000_000, undefined]);
    // Not configured: nothing to read, nothing told.
    expect(detectedAtMs(makeConfig(), threat({}), note)).toBeNull();
    expect(told).toHaveLength(3);
  });

  it("a severity's duration from `sla`; a severity left out (or unknown) has none", () => {
    const sla = makeConfig({ sla: { critical: "7d", low: "36h" } }).sla;
    if (!sla) throw new Error("sla not parsed");
    expect(slaDurationMs(sla, 4)).toBe(7 * 86_400_000);
    expect(slaDurationMs(sla, 1)).toBe(36 * 3_600_000);
    expect(slaDurationMs(sla, 3)).toBeNull();
    expect(slaDurationMs(sla, null)).toBeNull();
  });
});
