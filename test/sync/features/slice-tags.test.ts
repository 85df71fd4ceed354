import fc from "fast-check";
import { readFileSync } from "node:fs";
import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { Json } from "../../../src/state/journal-line.js";
import { decodeSnapshot, encodeSnapshot, type StoreView } from "../../../src/state/snapshot-codec.js";
import { ThreatTable } from "../../../src/state/threat-table.js";
import type { SliceTagger } from "../../../src/state/slice-tags.js";
import { ThreatRecordsView, type ThreatRecords } from "../../../src/sync/records/threat-records.js";
import { sliceTaggers } from "../../../src/sync/features/registry.js";
import { notes } from "../../../src/sync/features/notes/index.js";
import { project } from "../../../src/sync/features/project/index.js";
import { parseSlice } from "../../../src/sync/features/notes/slice.js";
import { itemOf } from "../../../src/sync/features/project/slice.js";
import type { FeatureCounts } from "../../../src/sync/features/types.js";

/**
 * `status` counts the notes and project items from the digits a snapshot keeps beside their slice
 * columns (src/state/slice-tags.ts), without inflating the columns; what it shows must be exactly
 * what reading every slice gives, whatever the journal changed since the snapshot.
 */

const pause = (): Promise<void> => Promise.resolve();

function mapped(n: number, slices?: Record<string, string>): { [k: string]: Json } {
  return {
    status: "unsolved",
    severity: 2,
    assetId: null,
    updatedAt: "2026-01-02T03:04:05.678Z",
    issue: {
      repo: "acme/sec",
      number: n,
      url: `https://github.com/acme/sec/issues/${n}`,
      state: "open",
      hash: "h",
    },
    link: `acme/sec#${n}`,
    ...(slices === undefined ? {} : { slices }),
  };
}

function viewOf(table: ThreatTable): ThreatRecordsView {
  return ThreatRecordsView.over(table);
}

/** The counts as `status` made them before the tags: every slice read and parsed. */
function unpackedCounts(threats: ThreatRecords): Record<string, FeatureCounts> {
  let written = 0;
  let absent = 0;
  threats.scanSlices("notes", (_id, text) => {
    const slice = parseSlice(text);
    if (slice.w !== undefined) written += 1;
    if (slice.n === 1) absent += 1;
  });
  let items = 0;
  threats.scanSlices("project", (_id, text) => {
    if ((itemOf(text) ?? 0) > 0) items += 1;
  });
  return { notes: { written, absent }, project: { items } };
}

function summaryCounts(threats: ThreatRecords): Record<string, FeatureCounts> {
  return {
    notes: notes.status?.counts(threats, 0) ?? {},
    project: project.status?.counts(threats, 0) ?? {},
  };
}

async function snapshotText(table: ThreatTable, taggers = sliceTaggers()): Promise<string> {
  const view: StoreView = { gen: 1, seq: 1, meta: new Map(), collections: new Map([["threats", table]]) };
  return (await encodeSnapshot(view, pause, taggers)).join("");
}

function loaded(text: string): ThreatTable {
  const back = decodeSnapshot(JSON.parse(text)).collections.get("threats");
  if (!(back instanceof ThreatTable)) throw new Error("threats did not decode to a table");
  return back;
}

/** Slices of every shape the two features read: hash alone, JSON with or without `w`/`n`, items 0 or not, junk. */
const notesSlice = fc.constantFrom(
  "hAsH1",
  "",
  '{"w":"h2","c":[[1,"a","2026-01-01T00:00:00Z","x"]]}',
  '{"n":1}',
  '{"w":"h3","n":1}',
  '{"p":1}',
  "{not json",
  '{"n":2}',
);
const projectSlice = fc.constantFrom(
  "4711\tacme/sec#1\tSeverity\tx1",
  "0\tacme/sec#2",
  '{"k":"acme/sec#3","i":12,"v":{"A\\tB":"y"}}',
  '{"k":"acme/sec#4","i":0,"v":{}}',
  "garbage",
  "-3\tacme/sec#5",
);
const slices = fc.record({ notes: notesSlice, project: projectSlice }, { requiredKeys: [] }) as fc.Arbitrary<
  Record<string, string>
>;
/** A row as stored: packed, or kept whole (a refusal's record) with its slices in it. */
const row = fc.record({ slices, whole: fc.boolean() });
const rowValue = (n: number, r: { slices: Record<string, string>; whole: boolean }): Json => {
  const value = mapped(n, Object.keys(r.slices).length === 0 ? undefined : r.slices);
  return r.whole
    ? { ...value, refused: { action: "create", reason: "x", at: "2026-01-01T00:00:00.000Z" } }
    : value;
};

describe("status's notes and project counts from the snapshot's slice tags", () => {
  it("equal the counts from every slice read, at load and after any journal change, without inflating a column", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { minLength: 1, maxLength: 30 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 40 }), fc.option(row, { nil: undefined })), {
          maxLength: 20,
        }),
        async (rows, changes) => {
          const table = new ThreatTable();
          rows.forEach((r, i) => table.set(`t${i}`, rowValue(i + 1, r)));
          const text = await snapshotText(table);
          const back = loaded(text);
          // The journal's commits since the snapshot: rows changed, added, deleted.
          for (const [n, r] of changes) {
            if (r === undefined) back.delete(`t${n}`);
            else back.set(`t${n}`, rowValue(n + 1, r));
          }
          const summary = summaryCounts(viewOf(back));
          expect(back.inflatedSlices()).toEqual([]);
          // The reference, from a table read afresh (the unpacked path: every slice read).
          expect(summary).toEqual(unpackedCounts(viewOf(back)));
        },
      ),
      { numRuns: 150 },
    );
  });

  it("are written beside each slice column by a snapshot whose store has the taggers, and read back", async () => {
    const table = new ThreatTable();
    table.set("t1", mapped(1, { notes: "h1", project: "7\tacme/sec#1" }));
    table.set("t2", mapped(2, { notes: '{"n":1}' }));
    table.set("t3", mapped(3));
    const text = await snapshotText(table);
    const block = (JSON.parse(text) as { collections: { threats: Record<string, Json> } }).collections
      .threats;
    expect(block["sliceNames"]).toEqual(["notes", "project"]);
    expect((block["sliceTags"] as [string, string][]).map(([id]) => id)).toEqual(["notes/1", "project/1"]);
    expect(summaryCounts(viewOf(loaded(text)))).toEqual({
      notes: { written: 1, absent: 1 },
      project: { items: 1 },
    });
    // Without taggers (a store opened by a tool that has none): no tags, the snapshot as before.
    const without = await snapshotText(table, new Map());
    expect(without).not.toContain("sliceTags");
    expect(summaryCounts(viewOf(loaded(without)))).toEqual(summaryCounts(viewOf(loaded(text))));
  });

  it("are carried from one snapshot to the next: a compaction tags only the rows changed since the last", async () => {
    let calls = 0;
    const counting = (id: string): SliceTagger => ({
      id,
      tag: (text) => {
        calls += 1;
        return text.startsWith("{") ? 2 : 1;
      },
    });
    const table = new ThreatTable();
    for (let i = 1; i <= 50; i++) table.set(`t${i}`, mapped(i, { notes: `h${i}` }));
    const first = await snapshotText(table, new Map([["notes", counting("n/1")]]));
    expect(calls).toBe(50);
    const back = loaded(first);
    back.set("t7", mapped(7, { notes: '{"n":1}' }));
    back.delete("t8");
    calls = 0;
    const second = await snapshotText(back, new Map([["notes", counting("n/1")]]));
    expect(calls).toBe(1);
    const again = loaded(second);
    expect(again.tallySlices("notes", counting("n/1")).slice(0, 3)).toEqual([0, 48, 1]);
    expect(again.inflatedSlices()).toEqual([]);
    // Under another id every row is tagged again.
    calls = 0;
    await snapshotText(again, new Map([["notes", counting("n/2")]]));
    expect(calls).toBe(49);
  });

  it("come from the slices when the tags were kept under another tagger's id (a tag whose meaning changed)", async () => {
    const table = new ThreatTable();
    table.set("t1", mapped(1, { notes: "h1" }));
    table.set("t2", mapped(2, { notes: '{"n":1}' }));
    const other: SliceTagger = { id: "notes/0", tag: () => 9 };
    const text = await snapshotText(table, new Map([["notes", other]]));
    const back = loaded(text);
    expect(summaryCounts(viewOf(back)).notes).toEqual({ written: 1, absent: 1 });
    expect(back.inflatedSlices()).toEqual(["notes"]);
  });

  it("are not used where they do not decode (the slices, checked at open, are read); a snapshot whose tags do not pair with its columns is refused", async () => {
    const table = new ThreatTable();
    table.set("t1", mapped(1, { notes: "h1" }));
    table.set("t2", mapped(2, { notes: '{"n":1}' }));
    const good = JSON.parse(await snapshotText(table)) as { collections: { threats: Record<string, Json> } };
    const tags = good.collections.threats["sliceTags"] as [string, string][];
    const deflated = (text: string): string =>
      `${text.length}:${deflateSync(Buffer.from(text)).toString("base64")}`;
    for (const bad of [
      "2:AAAA",
      tags[0]?.[1].slice(0, 8) ?? "",
      deflated("1x"),
      deflated("111"),
      "garbage",
    ]) {
      const doc = structuredClone(good);
      doc.collections.threats["sliceTags"] = [["notes/1", bad]];
      const back = decodeSnapshot(doc).collections.get("threats");
      if (!(back instanceof ThreatTable)) throw new Error("threats did not decode to a table");
      expect(summaryCounts(viewOf(back)).notes, bad).toEqual({ written: 1, absent: 1 });
      expect(back.inflatedSlices()).toEqual(["notes"]);
    }
    for (const bad of [[], [null, null]] as Json[]) {
      const doc = structuredClone(good);
      doc.collections.threats["sliceTags"] = bad;
      expect(() => decodeSnapshot(doc), JSON.stringify(bad)).toThrow(/slice tag columns/);
    }
  });
});

describe("a store-version-7 snapshot (codec threat-8) written before slice tags", () => {
  const text = readFileSync(
    new URL("../../state/fixtures/snapshot-threat-8-everything.json", import.meta.url),
    "utf8",
  );

  it("loads, counts as reading every slice does, and is written again with tags that count the same", async () => {
    expect(text).toMatch(/"version": 7,/);
    expect(text).toContain(`"codec": "threat-8"`);
    expect(text).not.toContain("sliceTags");
    const old = loaded(text);
    const counts = summaryCounts(viewOf(old));
    expect(counts).toEqual(unpackedCounts(viewOf(loaded(text))));
    expect(counts).toEqual({ notes: { written: 4, absent: 0 }, project: { items: 5 } });
    const rewritten = await snapshotText(old);
    expect(rewritten).toContain(`"sliceTags":[`);
    const again = loaded(rewritten);
    expect(summaryCounts(viewOf(again))).toEqual(counts);
    expect(again.inflatedSlices()).toEqual([]);
    expect(Object.fromEntries(again.entries())).toEqual(Object.fromEntries(old.entries()));
  });
});
