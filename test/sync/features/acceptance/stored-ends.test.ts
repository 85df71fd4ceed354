import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { databasePathOf, openStateStore } from "../../../../src/state/index.js";
import { sqlite } from "../../../../src/state/sqlite.js";
import type { ThreatRecord } from "../../../../src/sync/schema.js";
import { stateFromStore } from "../../../../src/sync/index.js";
import { ThreatRecordsView, type ThreatRecords } from "../../../../src/sync/records/threat-records.js";
import { ThreatIndex } from "../../../../src/sync/records/threat-index.js";
import type { FeatureContext } from "../../../../src/sync/features/types.js";
import { acceptance } from "../../../../src/sync/features/acceptance/index.js";
import { acceptanceCounts } from "../../../../src/sync/features/acceptance/status.js";
import { acceptanceNextAt } from "../../../../src/sync/features/acceptance/transitions.js";
import { ACCEPTANCE, ACCEPTANCE_TIME, acceptanceOf } from "../../../../src/sync/features/acceptance/slice.js";
import { featured } from "../../feature-fields.js";
import { makeConfig } from "../../harness.js";
import { withTempDir } from "../../../state/helpers.js";

/**
 * Contract, "Risk acceptance": its warning before the end and its end are due by the clock, and
 * `status` and `/metrics` count the acceptances held and ending within 7 days. Over the store both
 * are read by the index of the stored ends (ACCEPTANCE_TIME) and the acceptances' own rows: for
 * any acceptances, the same answers as reading every acceptance.
 */

const NOW = Date.parse("2026-11-25T12:00:00.000Z");
const DAY = 86_400_000;
const WARN = 7 * DAY;
const config = makeConfig({
  acceptance: { label: "risk-accepted", default: "30d", max: "90d", warn_before: "7d" },
});

/** An end around now (before, within the warning, within a week, later), or one that is no time. */
const until = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .integer({ min: NOW - 20 * DAY, max: NOW + 40 * DAY })
      .map((ms) => new Date(ms).toISOString()),
  },
  { weight: 1, arbitrary: fc.constantFrom("2026-12-01", "soon", "") },
);
const spelled = fc.record(
  {
    issue: fc.constantFrom("open" as const, "closed" as const),
    gone: fc.boolean(),
    held: fc.record({
      until,
      since: fc.constant<string>("2026-10-01T00:00:00.000Z"),
      by: fc.constant("alice"),
      step: fc.constantFrom("accepted" as const, "announced" as const, "warned" as const, "expired" as const),
    }),
    sought: fc.constant("v1"),
    queued: fc.boolean(),
  },
  { requiredKeys: ["issue", "gone", "queued"] },
);

type Shape = typeof spelled extends fc.Arbitrary<infer T> ? T : never;

function recordOf(s: Shape, n: number): ThreatRecord {
  return featured({
    status: "accepted",
    severity: 3,
    assetId: null,
    updatedAt: "v1",
    ...(s.gone ? { gone: true } : {}),
    issue: { repo: "acme/sec", number: n, url: "u", state: s.issue, hash: "h" },
    acceptance: s.held,
    acceptanceSought: s.sought,
  });
}

/** What the acceptance's clock sees of the engine (features/types.ts `FeatureContext`). */
function contextOf(threats: ThreatRecords, queue: Record<string, unknown>): FeatureContext {
  return {
    config,
    state: { threats, queue, assets: {}, groups: {}, features: {} },
    index: ThreatIndex.build(threats),
  } as unknown as FeatureContext;
}

const waiting = (ctx: FeatureContext, nowMs: number): string[] => [
  ...(acceptance.clock?.waiting?.(ctx, nowMs) ?? []),
];

describe("the acceptance's clock and counts over the stored ends", () => {
  it("waiting (every held acceptance not queued whose comment, warning or end is due) and the counts held / ending within 7 days equal a read of every acceptance, over the store (writable and read-only) and a plain state", async () => {
    const { dir, cleanup } = await withTempDir();
    let n = 0;
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(spelled, { maxLength: 14 }), async (shapes) => {
          const records: Record<string, ThreatRecord> = {};
          const queue: Record<string, unknown> = {};
          shapes.forEach((s, i) => {
            const id = `t${String(i).padStart(2, "0")}`;
            records[id] = recordOf(s, i + 1);
            if (s.queued) queue[id] = { at: "x" };
          });
          // The model: every record's acceptance read as it is.
          const held = Object.entries(records).flatMap(([id, r]) => {
            const a = acceptanceOf(r);
            return a ? [[id, a] as const] : [];
          });
          const due = held
            .filter(([id, a]) => !queue[id] && acceptanceNextAt(a, WARN) <= NOW)
            .map(([id]) => id)
            .sort();
          const counts = acceptanceCounts(
            held.map(([, a]) => a),
            NOW,
          );

          const plain = ThreatRecordsView.of(records);
          expect(waiting(contextOf(plain, queue), NOW).sort()).toEqual(due);
          expect(acceptance.status?.counts?.(plain, NOW)).toEqual(counts);

          const path = `${dir}/state-${(n += 1)}.json`;
          const store = await openStateStore(path);
          for (const [id, r] of Object.entries(records))
            store.set("threats", id, JSON.parse(JSON.stringify(r)));
          await store.commit();
          // Read-only before any writer declared the ends: read from the acceptances' JSON.
          const reader = await openStateStore(path, { readOnly: true });
          expect(acceptance.status?.counts?.(stateFromStore(reader).threats, NOW)).toEqual(counts);
          await reader.close();
          // Writable: the ends declared at first use, then index ranges; in order of threat id.
          const sql = stateFromStore(store).threats;
          expect(sql.lookups).toBeDefined();
          expect(waiting(contextOf(sql, queue), NOW)).toEqual(due);
          expect(acceptance.status?.counts?.(sql, NOW)).toEqual(counts);
          await store.close();
        }),
        { numRuns: 40 },
      );
    } finally {
      await cleanup();
    }
  });

  it("an idle clock reads no acceptance that ends later than its warning: only the ends due and the steps due at once are visited", async () => {
    const { dir, cleanup } = await withTempDir();
    try {
      const store = await openStateStore(`${dir}/state.json`);
      const at = (ms: number) => new Date(ms).toISOString();
      const put = (id: string, until: number, step: "accepted" | "announced" | "warned" | "expired") =>
        store.set(
          "threats",
          id,
          JSON.parse(
            JSON.stringify(
              recordOf(
                {
                  issue: "closed",
                  gone: false,
                  queued: false,
                  held: { until: at(until), since: "s", by: "alice", step },
                },
                1,
              ),
            ),
          ),
        );
      put("later", NOW + 60 * DAY, "announced");
      put("warn", NOW + 3 * DAY, "announced");
      put("comment", NOW + 60 * DAY, "accepted");
      await store.commit();
      const threats = stateFromStore(store).threats;
      const visited: string[] = [];
      const others = threats.slicesDueBy(
        ACCEPTANCE,
        ACCEPTANCE_TIME,
        NOW + WARN,
        { path: "held.step", values: ["accepted", "expired"] },
        (id) => visited.push(id),
      );
      expect(visited).toEqual(["comment", "warn"]);
      expect(others).toBe(1);
      expect(waiting(contextOf(threats, {}), NOW)).toEqual(["comment", "warn"]);
      await store.close();
      // The store keeps the end as the acceptance's time columns (one declared time a feature).
      const { DatabaseSync } = sqlite();
      const db = new DatabaseSync(databasePathOf(`${dir}/state.json`), { readOnly: true });
      try {
        expect(db.prepare(`SELECT due FROM features WHERE name = 'acceptance'`).get()).toEqual({
          due: "$.held.until",
        });
        const dues = db.prepare(
          `SELECT t.id AS subject, f.due FROM feature_data AS f JOIN threats AS t ON t.n = f.subject
             WHERE f.feature = (SELECT n FROM features WHERE name = 'acceptance') ORDER BY t.id`,
        );
        expect(dues.all().map((row) => [row["subject"], row["due"]])).toEqual([
          ["comment", NOW + 60 * DAY],
          ["later", NOW + 60 * DAY],
          ["warn", NOW + 3 * DAY],
        ]);
      } finally {
        db.close();
      }
    } finally {
      await cleanup();
    }
  });
});
