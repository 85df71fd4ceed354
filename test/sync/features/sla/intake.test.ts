import { describe, expect, it } from "vitest";
import type { Threat } from "../../../../src/platform/index.js";
import { detectedAtMs, slaDurationMs } from "../../../../src/sync/features/sla/intake.js";
import { makeConfig } from "../../harness.js";

/** Contract, "Workflow" → "SLA": the start is `fields.threat.detected_at` when configured and parseable. */

const threat = (extra: Record<string, unknown>): Threat =>
  ({ id: "t", status: "unsolved", updated_at: "2026-11-25T00:00:00Z", ...extra }) as unknown as Threat;

describe("the SLA's inputs from the config and the threat", () => {
  it("detected_at: an ISO time or day, or a Unix time in seconds or milliseconds, is the start; anything else is told and falls back", () => {
    const config = makeConfig({ fields: { threat: { detected_at: "meta.first_seen" } } });
    const told: unknown[] = [];
    const note = (v: unknown): void => {
      told.push(v);
    };
    const at = (value: unknown): number | null =>
      detectedAtMs(config, threat({ meta: { first_seen: value } }), note);
    expect(at("2026-11-01T08:00:00Z")).toBe(Date.parse("2026-11-01T08:00:00Z"));
    expect(at("2026-11-01 08:00:00+02:00")).toBe(Date.parse("2026-11-01T06:00:00Z"));
    expect(at("2026-11-01")).toBe(Date.parse("2026-11-01T00:00:00Z"));
    expect(at(1_700_000_000)).toBe(1_700_000_000_000);
    expect(at(1_700_000_000_123)).toBe(1_700_000_000_123);
    expect(at("1700000000")).toBe(1_700_000_000_000);
    expect(at("last tuesday")).toBeNull();
    expect(at("2026-13-45T99:00:00Z")).toBeNull();
    expect(at(-5)).toBeNull();
    expect(detectedAtMs(config, threat({}), note)).toBeNull();
    expect(told).toEqual(["last tuesday", "2026-13-45T99:00:00Z", -5, undefined]);
    // Not configured: nothing to read, nothing told.
    expect(detectedAtMs(makeConfig(), threat({}), note)).toBeNull();
    expect(told).toHaveLength(4);
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
