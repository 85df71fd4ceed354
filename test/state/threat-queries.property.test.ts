import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { openStateStore } from "../../src/state/index.js";
import { type ThreatRecord } from "../../src/sync/schema.js";
import { stateFromStore } from "../../src/sync/index.js";
import { ThreatRecordsView, type ThreatRecords } from "../../src/sync/records/threat-records.js";
import { ThreatIndex } from "../../src/sync/records/threat-index.js";
import { withTempDir } from "./helpers.js";
import { featured, type Spelled } from "../sync/feature-fields.js";

/**
 * The questions the engine asks of every stored threat are answered in SQL over the database's rows
 * (src/state/threat-queries.ts): for any records, the same answers as reading every record.
 */

const iso = fc
  .integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2028, 0, 1) })
  .map((ms) => new Date(ms).toISOString());

const spelledRecord: fc.Arbitrary<Spelled> = fc.record(
  {
    status: fc.constantFrom("unsolved", "solved", "accepted"),
    severity: fc.integer({ min: 0, max: 4 }),
    assetId: fc.option(fc.constantFrom("a1", "a2", "a3"), { nil: null }),
    updatedAt: iso,
    gone: fc.constant(true),
    issue: fc.record({
      repo: fc.constantFrom("acme/sec", "acme/ops", "Acme/Sec"),
      number: fc.integer({ min: 1, max: 500 }),
      url: fc.constant("https://github.com/acme/sec/issues/1"),
      state: fc.constantFrom("open" as const, "closed" as const),
      hash: fc.constant("h"),
    }),
    refused: fc.record({ action: fc.constant("update"), reason: fc.constant("locked"), at: iso }),
    acceptance: fc.record({
      until: iso,
      since: iso,
      by: fc.constant("alice"),
      step: fc.constantFrom("accepted" as const, "warned" as const),
    }),
    sla: fc.record(
      { since: iso, due: iso, breach: fc.constantFrom("added" as const, "removed" as const) },
      { requiredKeys: ["since", "due"] },
    ),
    slices: fc.dictionary(fc.constantFrom("notes", "project", "__proto__", "a'b"), fc.string(), {
      minKeys: 1,
    }),
  },
  { requiredKeys: ["status", "severity", "assetId", "updatedAt"] },
);
/** Records with the SLA's and the acceptance's data in their slices (feature_data), beside others. */
const record: fc.Arbitrary<ThreatRecord> = spelledRecord.map((spelled) => {
  const { slices, ...rest } = spelled;
  const withFeatures = featured(rest);
  return slices === undefined
    ? withFeatures
    : { ...withFeatures, slices: { ...withFeatures.slices, ...slices } };
});
const SLA_AT = { due: "due", unless: "breach" };

function collect<T extends unknown[]>(run: (visit: (...args: T) => void) => void): T[] {
  const seen: T[] = [];
  run((...args) => seen.push(args));
  return seen.sort((a, b) => String(a[0]).localeCompare(String(b[0])));
}

describe("the threats' SQL queries", () => {
  it("scan, tally, a re-delivery (sameVersion), a feature's due times (scanTimes) and earliest due, and slices equal a read of every record", async () => {
    const { dir, cleanup } = await withTempDir();
    let n = 0;
    try {
      await fc.assert(
        fc.asyncProperty(fc.dictionary(fc.uuid(), record, { maxKeys: 12 }), async (records) => {
          const path = `${dir}/state-${(n += 1)}.json`;
          const store = await openStateStore(path);
          for (const [id, r] of Object.entries(records))
            store.set("threats", id, JSON.parse(JSON.stringify(r)));
          await store.commit();
          const sql = stateFromStore(store).threats;
          const plain = ThreatRecordsView.of(records);
          const issueOf = (issue: { repo: string; number: number } | null) =>
            issue === null ? null : { repo: issue.repo, number: issue.number };
          expect(collect((v) => sql.scan((id, asset, issue) => v(id, asset, issueOf(issue))))).toEqual(
            collect((v) => plain.scan((id, asset, issue) => v(id, asset, issueOf(issue)))),
          );
          const { special: sqlSpecial, ...sqlTally } = sql.tally();
          const { special: plainSpecial, ...plainTally } = plain.tally();
          expect(sqlTally).toEqual(plainTally);
          expect(sqlSpecial.map(([id]) => id).sort()).toEqual(plainSpecial.map(([id]) => id).sort());
          expect(collect((v) => sql.scanTimes("sla", SLA_AT, v))).toEqual(
            collect((v) => plain.scanTimes("sla", SLA_AT, v)),
          );
          for (const feature of ["notes", "project", "a'b", "sla", "acceptance"])
            expect(collect((v) => sql.scanSlices(feature, v))).toEqual(
              collect((v) => plain.scanSlices(feature, v)),
            );
          // The earliest due of an open SLA not breached: a lower bound no such record precedes.
          let earliest = Number.POSITIVE_INFINITY;
          plain.scanTimes("sla", SLA_AT, (_id, due, open, breach) => {
            if (open && !breach) earliest = Math.min(earliest, due);
          });
          expect(sql.earliestTime("sla", SLA_AT)).toBe(earliest);
          expect(plain.earliestTime("sla", SLA_AT)).toBe(earliest);
          // Counts of the open issues' due times up to instants (status's SLA counts): index ranges.
          const bounds = [Date.UTC(2025, 6, 1), Date.UTC(2026, 6, 1), Date.UTC(2027, 6, 1)];
          expect(sql.countTimes("sla", SLA_AT, bounds)).toEqual(plain.countTimes("sla", SLA_AT, bounds));
          // The engine's lookups asked of the database equal those kept in maps over the records (the
          // latest row of an issue mapped twice, its repository spelled in any case).
          expect(sql.lookups).toBeDefined();
          const fromSql = ThreatIndex.build(sql);
          const fromMaps = ThreatIndex.build(plain);
          expect(fromSql.repositories().sort()).toEqual(fromMaps.repositories().sort());
          const sorted = <V>(map: ReadonlyMap<string, V>) =>
            [...map]
              .map(([k, v]) => [k, v instanceof Set ? [...v].sort() : v])
              .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
          expect(sorted(fromSql.byAsset)).toEqual(sorted(fromMaps.byAsset));
          for (const asset of ["a1", "a2", "a3"])
            expect([...(fromSql.byAsset.get(asset) ?? [])].sort()).toEqual(
              [...(fromMaps.byAsset.get(asset) ?? [])].sort(),
            );
          // A re-delivery told by the row's columns (its version, its status, not gone) as by the record.
          for (const [id, r] of Object.entries(records))
            for (const [updatedAt, status] of [
              [r.updatedAt, r.status],
              [r.updatedAt, "solved"],
              ["2024-01-01T00:00:00.000Z", r.status],
            ] as const)
              expect(sql.sameVersion(id, updatedAt, status)).toBe(plain.sameVersion(id, updatedAt, status));
          expect(sql.sameVersion("no-such-threat", "x", "unsolved")).toBe(false);
          expect(new Set(fromSql.byIssue.keys())).toEqual(new Set(fromMaps.byIssue.keys()));
          for (const key of fromMaps.byIssue.keys())
            expect(fromSql.byIssue.get(key)).toBe(fromMaps.byIssue.get(key));
          await store.close();
        }),
        { numRuns: 40 },
      );
    } finally {
      await cleanup();
    }
  });

  it("a feature's slices due by a bound (slicesDueBy: a time at or before it, none, or a step due at once), at a key or a nested one, equal a read of every record", async () => {
    const { dir, cleanup } = await withTempDir();
    let n = 0;
    const ACCEPTANCE_AT = { due: "held.until", unless: "held.off" };
    const steps = { path: "held.step", values: ["accepted"] };
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.dictionary(fc.uuid(), record, { maxKeys: 12 }),
          fc.integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2028, 0, 1) }),
          async (records, bound) => {
            const store = await openStateStore(`${dir}/state-${(n += 1)}.json`);
            for (const [id, r] of Object.entries(records))
              store.set("threats", id, JSON.parse(JSON.stringify(r)));
            await store.commit();
            const plain = ThreatRecordsView.of(records);
            const reader = await openStateStore(`${dir}/state-${n}.json`, { readOnly: true });
            const sql = stateFromStore(store).threats;
            for (const [feature, at] of [
              ["sla", SLA_AT],
              ["acceptance", ACCEPTANCE_AT],
            ] as const) {
              const due = (threats: ThreatRecords) => {
                const seen: [string, number, string][] = [];
                const others = threats.slicesDueBy(feature, at, bound, steps, (...row) => seen.push(row));
                return { seen, others };
              };
              const expected = due(plain);
              // Read-only and not declared: columns computed into a temp copy; writable: the file's columns.
              expect(due(stateFromStore(reader).threats)).toEqual(expected);
              expect(due(sql)).toEqual(expected);
            }
            await reader.close();
            await store.close();
          },
        ),
        { numRuns: 40 },
      );
    } finally {
      await cleanup();
    }
  });
});
