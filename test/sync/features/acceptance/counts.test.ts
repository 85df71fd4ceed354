import { describe, expect, it } from "vitest";
import type { ThreatRecord } from "../../../../src/sync/schema.js";
import { acceptanceCounts, acceptanceLines } from "../../../../src/sync/features/acceptance/status.js";
import { acceptance } from "../../../../src/sync/features/acceptance/index.js";
import { featured } from "../../feature-fields.js";
import { ThreatRecordsView } from "../../../../src/sync/records/threat-records.js";

/**
 * Contract, "Workflow", risk acceptance: `/metrics` gives the acceptances held and those ending
 * within 7 days (threatbridge_risk_acceptances, threatbridge_risk_acceptances_ending_soon).
 */

const NOW = Date.parse("2026-11-25T12:00:00.000Z");
const DAY = 86_400_000;
const at = (ms: number): string => new Date(ms).toISOString();

describe("the acceptances /metrics counts", () => {
  it("held: every acceptance before its end was sent; ending soon: within 7 days, or past its end and not yet expired", () => {
    const counts = acceptanceCounts(
      [
        { until: at(NOW + 30 * DAY), step: "announced" },
        { until: at(NOW + 6 * DAY), step: "warned" },
        { until: at(NOW + 7 * DAY), step: "announced" },
        { until: at(NOW - DAY), step: "warned" },
        { until: at(NOW - 3 * DAY), step: "expired" },
      ],
      NOW,
    );
    expect(counts).toEqual({ held: 4, endingWithin7Days: 3 });
  });

  it("none held: zeros", () => {
    expect(acceptanceCounts([], NOW)).toEqual({ held: 0, endingWithin7Days: 0 });
  });

  it("the feature's status counts (what the gauges read) count the stored acceptance slices alike", () => {
    const base = { status: "accepted", severity: 3, assetId: null, updatedAt: "u" };
    const held = (until: number, step: "announced" | "warned" | "expired"): ThreatRecord =>
      featured({ ...base, acceptance: { until: at(until), since: "s", by: "alice", step } });
    const records: Record<string, ThreatRecord> = {
      later: held(NOW + 30 * DAY, "announced"),
      soon: held(NOW + 6 * DAY, "warned"),
      ended: held(NOW - 3 * DAY, "expired"),
      none: base,
    };
    expect(acceptance.status?.counts?.(ThreatRecordsView.of(records), NOW)).toEqual({
      held: 2,
      endingWithin7Days: 1,
    });
  });
});

describe("the acceptances `status` lists", () => {
  it("soonest end first, by instant: an end written in whole seconds (…:05Z) after one at …:04.500Z, before one at …:05.500Z", () => {
    const base = { status: "accepted", severity: 3, assetId: null, updatedAt: "u" };
    const held = (until: string): ThreatRecord =>
      featured({ ...base, acceptance: { until, since: "s", by: "alice", step: "announced" } });
    const records: Record<string, ThreatRecord> = {
      c: held("2026-12-01T00:00:05.500Z"),
      b: held("2026-12-01T00:00:05Z"),
      a: held("2026-12-01T00:00:04.500Z"),
      none: base,
    };
    expect(acceptanceLines(ThreatRecordsView.of(records)).map((l) => l.threatId)).toEqual(["a", "b", "c"]);
  });
});
