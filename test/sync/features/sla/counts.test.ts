import { describe, expect, it } from "vitest";
import { DAY_MS } from "../../../../src/shared/duration.js";
import type { ThreatRecord } from "../../../../src/sync/schema.js";
import { ThreatIndex } from "../../../../src/sync/records/threat-index.js";
import { ThreatRecordsView } from "../../../../src/sync/records/threat-records.js";
import { openSlaDues, slaCounts } from "../../../../src/sync/features/sla/counts.js";
import { slaClock } from "../../../../src/sync/features/sla/clock.js";
import { sla } from "../../../../src/sync/features/sla/index.js";
import type { FeatureContext } from "../../../../src/sync/features/types.js";
import { featured, slaOf, type Spelled } from "../../feature-fields.js";
import { withSla } from "../../../../src/sync/features/sla/slice.js";

// The SLA's clock reads the record alone: no context is needed to ask it.
const ctx = {} as FeatureContext;

/**
 * Contract, "Workflow" → "SLA": `status` and `/metrics` give the number of open issues breached
 * and due within 7 days; the sweep reads only the index of due times, never every record.
 */

const NOW = Date.parse("2026-11-25T10:00:00.000Z");
const iso = (ms: number): string => new Date(ms).toISOString();
function record(number: number, dueMs: number | null, extra: Partial<Spelled> = {}): ThreatRecord {
  return featured({
    status: "unsolved",
    severity: 4,
    assetId: null,
    updatedAt: "2026-11-23T07:00:00.000Z",
    issue: {
      repo: "acme/sec",
      number,
      url: `https://github.com/acme/sec/issues/${number}`,
      state: "open",
      hash: "h",
    },
    ...(dueMs !== null ? { sla: { since: iso(NOW - 30 * DAY_MS), due: iso(dueMs) } } : {}),
    ...extra,
  });
}

describe("SLA counts and the index of due times", () => {
  const records = {
    breached: record(1, NOW - DAY_MS),
    labelled: record(2, NOW - 2 * DAY_MS, {
      sla: { since: iso(NOW - 30 * DAY_MS), due: iso(NOW - 2 * DAY_MS), breach: "added" },
    }),
    soon: record(3, NOW + 6 * DAY_MS),
    later: record(4, NOW + 8 * DAY_MS),
    closed: record(5, NOW - DAY_MS, {
      issue: {
        repo: "acme/sec",
        number: 5,
        url: "https://github.com/acme/sec/issues/5",
        state: "closed",
        hash: "h",
      },
    }),
    none: record(6, null),
  };

  it("breached: open issues past their due date (labelled or not); due within 7 days: open, not yet past (the feature's counts, which status and /metrics show)", () => {
    const threats = ThreatRecordsView.of(records);
    expect(slaCounts(openSlaDues(threats), NOW)).toEqual({ breached: 2, dueWithin7Days: 1 });
    expect(sla.status?.counts?.(threats, NOW)).toEqual({ breached: 2, dueWithin7Days: 1 });
  });

  it("the sweep's index of due times holds open issues whose label is not added yet, built at the first sweep, and follows updates", () => {
    const threats = ThreatRecordsView.of(records);
    const index = ThreatIndex.build(threats);
    const source = { dueAt: (r: ThreatRecord) => slaClock.nextDueAt(r, ctx), scan: slaClock.scanDue! };
    const dues = index.dueTimes("sla", source);
    expect([...dues.keys()].sort()).toEqual(["breached", "later", "soon"]);
    const labelled = withSla(records.breached, { ...slaOf(records.breached)!, breach: "added" as const });
    threats.set("breached", labelled);
    index.update("breached", records.breached, labelled);
    expect(dues.has("breached")).toBe(false);
    // Still open and past its due date: counted as breached.
    expect(sla.status?.counts?.(threats, NOW)).toEqual({ breached: 2, dueWithin7Days: 1 });
    threats.delete("soon");
    index.update("soon", records.soon, undefined);
    expect(dues.has("soon")).toBe(false);
    expect(sla.status?.counts?.(threats, NOW)).toEqual({ breached: 2, dueWithin7Days: 0 });
    // Asked again, the same index (not built twice).
    expect(index.dueTimes("sla", source)).toBe(dues);
  });
});
