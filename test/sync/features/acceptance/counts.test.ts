import { describe, expect, it } from "vitest";
import { acceptanceCounts } from "../../../../src/sync/features/acceptance/status.js";

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
});
