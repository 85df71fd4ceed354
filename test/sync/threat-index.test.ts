import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ThreatIndex } from "../../src/sync/records/threat-index.js";
import { ThreatRecordsView } from "../../src/sync/records/threat-records.js";
import type { ThreatRecord } from "../../src/sync/schema.js";
import type { FeatureContext } from "../../src/sync/features/types.js";
import { slaClock } from "../../src/sync/features/sla/clock.js";
import { acceptanceOf, slaOf } from "./feature-fields.js";
import { acceptanceOfSlice, withAcceptance } from "../../src/sync/features/acceptance/slice.js";
import { withSla } from "../../src/sync/features/sla/slice.js";

// The SLA's clock reads the record alone: no context is needed to ask it.
const ctx = {} as FeatureContext;

const record = (assetId: string | null, number?: number, repo = "acme/Sec"): ThreatRecord => ({
  status: "unsolved",
  severity: 3,
  assetId,
  updatedAt: "2026-11-23T07:00:00.000Z",
  ...(number !== undefined
    ? {
        issue: { repo, number, url: `https://github.com/${repo}/issues/${number}`, state: "open", hash: "h" },
      }
    : {}),
});

describe("the engine's lookups by asset and by issue (no cycle scans every threat)", () => {
  it("is built from the stored records and kept current by updates, the issue lookup on first use", () => {
    const threats = ThreatRecordsView.of({
      t1: record("a1", 1),
      t2: record("a1"),
      t3: record("a2", 3, "acme/other"),
    });
    const index = ThreatIndex.build(threats);
    expect([...(index.byAsset.get("a1") ?? [])].sort()).toEqual(["t1", "t2"]);
    expect(index.repositories().sort()).toEqual(["acme/Sec", "acme/other"]);
    // An update before the issue lookup was ever asked for is seen by it when it is built.
    threats.set("t2", record("a2", 2));
    index.update("t2", record("a1"), record("a2", 2));
    expect(index.byIssue.get("acme/sec#2")).toBe("t2");
    expect(index.byIssue.get("acme/sec#1")).toBe("t1");
    // And one after it was built is applied to it.
    threats.set("t1", record("a1", 9, "acme/other"));
    index.update("t1", record("a1", 1), record("a1", 9, "acme/other"));
    expect(index.byIssue.has("acme/sec#1")).toBe(false);
    expect(index.byIssue.get("acme/other#9")).toBe("t1");
    expect([...(index.byAsset.get("a1") ?? [])]).toEqual(["t1"]);
    // The asset lookup too is built on first use, from the records as they are by then.
    const later = ThreatIndex.build(threats);
    threats.set("t3", record("a1", 3, "acme/other"));
    later.update("t3", record("a2", 3, "acme/other"), record("a1", 3, "acme/other"));
    expect([...(later.byAsset.get("a1") ?? [])].sort()).toEqual(["t1", "t3"]);
    expect(later.byAsset.has("a2")).toBe(true);
    expect(later.repositories().sort()).toEqual(["acme/Sec", "acme/other"]);
    // A repository with no mapped issue left is no longer watched.
    threats.delete("t2");
    index.update("t2", record("a2", 2), undefined);
    expect(index.repositories()).toEqual(["acme/other"]);
  });

  it("a feature's lookup of its rare data (risk acceptance's held acceptances) reads only that feature's slices, on first use, and is kept current", () => {
    const held = {
      until: "2027-01-01T00:00:00.000Z",
      since: "2026-11-01",
      by: "octocat",
      step: "accepted" as const,
    };
    const threats = ThreatRecordsView.of({
      t1: withAcceptance(record("a1", 1), { held }),
      t2: record("a1", 2),
    });
    const index = ThreatIndex.build(threats);
    // An update before the lookup is asked for: it is built from the records as they are by then.
    const announced = withAcceptance(record("a1", 2), { held: { ...held, step: "announced" } });
    threats.set("t2", announced);
    index.update("t2", record("a1", 2), announced);
    const pick = (r: ThreatRecord) => acceptanceOf(r);
    const lookup = index.sliceBy("acceptance", acceptanceOfSlice, pick);
    expect([...lookup.keys()].sort()).toEqual(["t1", "t2"]);
    // Asked again under its name: the same lookup, not a second scan.
    expect(index.sliceBy("acceptance", acceptanceOfSlice, pick)).toBe(lookup);
    // An acceptance ended (forgotten by the record) or a threat dropped leaves the lookup.
    const accepted: ThreatRecord = withAcceptance(record("a1", 1), { held });
    index.update("t1", accepted, record("a1", 1));
    index.update("t2", record("a1", 2), undefined);
    expect(lookup.size).toBe(0);
  });

  it("a feature's due times, built at its first sweep from the SLA slices' due times (scanDue), are what nextDueAt of each record says, built or kept by updates (the sweep reads these)", () => {
    const sla = fc.record(
      {
        since: fc.constant("2026-11-01T00:00:00.000Z"),
        due: fc.constantFrom("2026-11-08T00:00:00.000Z", "2026-12-01T00:00:00Z", "2027-05-01T12:00:00.000Z"),
        breach: fc.constantFrom("added" as const, "removed" as const),
        milestone: fc.constantFrom("SLA 2026-11-08", "SLA 2026-12-06"),
      },
      { requiredKeys: ["since", "due"] },
    );
    const shape = fc.record({
      sla: fc.option(sla, { nil: undefined }),
      mapped: fc.boolean(),
      closed: fc.boolean(),
      gone: fc.boolean(),
      accepted: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(shape, { maxLength: 20 }), (shapes) => {
        const records: Record<string, ThreatRecord> = {};
        shapes.forEach((s, i) => {
          let r: ThreatRecord = record("a1", s.mapped ? i + 1 : undefined);
          if (r.issue && s.closed) r.issue.state = "closed";
          if (s.sla) r = withSla(r, s.sla);
          if (s.gone) r.gone = true;
          if (s.accepted)
            r = withAcceptance(r, {
              held: { until: "2027-01-01", since: "2026-11-01", by: "octocat", step: "accepted" },
            });
          records[`t${i}`] = r;
        });
        const threats = ThreatRecordsView.of(records);
        const dueAt = (r: ThreatRecord) => slaClock.nextDueAt(r, ctx);
        // From the slices' due times (scanTimes), as the SLA's clock builds it.
        const scanned = ThreatIndex.build(threats).dueTimes("sla", { dueAt, scan: slaClock.scanDue! });
        // From every record, as a clock without `scanDue` builds it.
        const asked = ThreatIndex.build(threats).dueTimes("sla", { dueAt });
        // The model: built while empty, then each record noted one by one, as updates note them.
        const noted = new ThreatIndex();
        const kept = noted.dueTimes("sla", { dueAt });
        for (const [id, r] of Object.entries(records)) noted.update(id, undefined, r);
        expect(scanned).toEqual(kept);
        expect(asked).toEqual(kept);
        // Only open issues whose breach label is not added (nor removed by a person) wait.
        const waiting = Object.entries(records).filter(([, r]) => {
          const sla = slaOf(r);
          return sla && r.issue?.state === "open" && !r.gone && sla.breach === undefined;
        });
        expect([...kept.keys()].sort()).toEqual(waiting.map(([id]) => id).sort());
      }),
      { numRuns: 200 },
    );
  });
});
