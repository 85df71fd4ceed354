import { readFileSync } from "node:fs";
import { deflateSync, inflateSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  SnapshotFormatError,
  decodeSnapshot,
  encodeSnapshot,
  type StoreView,
} from "../../src/state/snapshot-codec.js";
import { ThreatTable } from "../../src/state/threat-table.js";
import type { Json } from "../../src/state/journal-line.js";
import { asThreat7, colPackOf, colPackSync, packedSync } from "./helpers.js";

type JsonObject = { [k: string]: Json };
const pause = (): Promise<void> => Promise.resolve();

/** Any instant a Date formats in the canonical 4-digit-year form, and a few it does not. */
const canonical = fc
  .integer({ min: Date.UTC(0, 0, 1) - 1900 * 365.2425 * 86_400_000, max: Date.UTC(9999, 11, 31) })
  .map((ms) => new Date(ms).toISOString())
  .filter((s) => /^\d{4}-/.test(s));
const time = fc.oneof(
  { weight: 6, arbitrary: canonical },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "2026-11-01T00:00:00Z",
      "2026-11-01T00:00:00.000+00:00",
      "+275760-09-13T00:00:00.000Z",
      "2026-02-30T00:00:00.000Z",
      "",
    ),
  },
);
/** Every SlaRecord shape (src/state/schema.ts): since, due, breach?, milestone?. */
const sla: fc.Arbitrary<JsonObject> = fc
  .record(
    {
      since: time,
      due: time,
      breach: fc.constantFrom("added", "removed"),
      milestone: fc.oneof(fc.constantFrom("SLA 2026-12-06", "SLA 2027-01-03"), fc.string()),
    },
    { requiredKeys: ["since", "due"] },
  )
  .map((r) => ({ ...r }));
const record: fc.Arbitrary<Json> = fc
  .record({
    severity: fc.integer({ min: 0, max: 4 }),
    number: fc.integer({ min: 1, max: 1000 }),
    closed: fc.boolean(),
    mapped: fc.boolean(),
    sla: fc.option(sla, { nil: undefined }),
    occurrence: fc.option(fc.oneof(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.constant(0)), {
      nil: undefined,
    }),
    odd: fc.constantFrom(null, "extra-key", "sla-extra-key", "sla-not-object"),
  })
  .map((r): Json => {
    const value: JsonObject = {
      status: "unsolved",
      severity: r.severity,
      assetId: null,
      updatedAt: "2026-11-20T10:00:00.000Z",
    };
    if (r.mapped) {
      const url = `https://github.com/acme/sec/issues/${r.number}`;
      value["issue"] = {
        repo: "acme/sec",
        number: r.number,
        url,
        state: r.closed ? "closed" : "open",
        hash: "h",
      };
      value["link"] = `acme/sec#${r.number}`;
    }
    if (r.sla !== undefined) value["sla"] = r.sla;
    if (r.occurrence !== undefined) value["occurrence"] = r.occurrence;
    if (r.odd === "extra-key") value["acceptanceSought"] = "2026-11-20T10:00:00.000Z";
    if (r.odd === "sla-extra-key" && r.sla) value["sla"] = { ...r.sla, restarted: true };
    if (r.odd === "sla-not-object") value["sla"] = "2026-11-01";
    return value;
  });

async function roundTrip(table: ThreatTable): Promise<{ back: ThreatTable; text: string }> {
  const view: StoreView = { gen: 1, seq: 1, meta: new Map(), collections: new Map([["threats", table]]) };
  const text = (await encodeSnapshot(view, pause)).join("");
  const back = decodeSnapshot(JSON.parse(text)).collections.get("threats");
  if (!(back instanceof ThreatTable)) throw new Error("threats did not decode to a table");
  return { back, text };
}

const isCanonical = (v: Json | undefined): boolean =>
  typeof v === "string" &&
  /^\d{4}-/.test(v) &&
  !Number.isNaN(Date.parse(v)) &&
  new Date(v).toISOString() === v;

/** Whether the record's workflow fields are of the packed shape (what the table must pack). */
function packable(value: JsonObject): boolean {
  if (Object.hasOwn(value, "acceptanceSought")) return false;
  const o = value["occurrence"];
  if (o !== undefined && !(typeof o === "number" && o > 0)) return false;
  const s = value["sla"];
  if (s === undefined) return true;
  if (typeof s !== "object" || s === null || Array.isArray(s)) return false;
  if (Object.keys(s).some((k) => !["since", "due", "breach", "milestone"].includes(k))) return false;
  return isCanonical(s["since"]) && isCanonical(s["due"]);
}

describe("the SLA and occurrence columns of the threat table (every feature on costs about what it costs off)", () => {
  it("gives back every SlaRecord shape and occurrence deep-equal, packing exactly the lossless ones, through a snapshot too", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(record, { minLength: 1, maxLength: 30 }), async (values) => {
        const table = new ThreatTable();
        values.forEach((v, i) => table.set(`t${i}`, v));
        const loose = new Set([...table.looseEntries()].map(([id]) => id));
        values.forEach((v, i) => {
          expect(table.get(`t${i}`)).toEqual(v);
          expect(loose.has(`t${i}`)).toBe(!packable(v as JsonObject));
        });
        const { back } = await roundTrip(table);
        expect(Object.fromEntries(back.entries())).toEqual(Object.fromEntries(table.entries()));
        expect([...back.looseEntries()].map(([id]) => id).sort()).toEqual([...loose].sort());
        // A row set again without its SLA loses it (the columns are cleared, not left behind).
        for (const [id, v] of table.entries()) {
          const { sla: _sla, occurrence: _o, ...rest } = v as JsonObject;
          table.set(id, rest);
          expect(table.get(id)).toEqual(rest);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("keeps a time before which no open issue's SLA (breach not noted) falls due, packed or kept whole, through sets, deletes and a snapshot (what the SLA's sweep skips on)", async () => {
    /** What the SLA's clock finds due (features/sla/clock.ts): an open issue, no breach noted. */
    const dueOf = (value: Json): number | null => {
      if (typeof value !== "object" || value === null || Array.isArray(value) || value["gone"] === true)
        return null;
      const s = value["sla"];
      const issue = value["issue"];
      if (typeof s !== "object" || s === null || Array.isArray(s) || s["breach"] !== undefined) return null;
      if (typeof issue !== "object" || issue === null || Array.isArray(issue) || issue["state"] !== "open")
        return null;
      const due = typeof s["due"] === "string" ? Date.parse(s["due"]) : Number.NaN;
      return Number.isNaN(due) ? null : due;
    };
    const earliest = (rows: Iterable<[string, Json]>): number =>
      Math.min(Number.POSITIVE_INFINITY, ...[...rows].flatMap(([, v]) => dueOf(v) ?? []));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 6 }), fc.option(record, { nil: undefined })), {
          maxLength: 25,
        }),
        async (steps) => {
          const table = new ThreatTable();
          for (const [k, value] of steps) {
            if (value === undefined) table.delete(`t${k}`);
            else table.set(`t${k}`, value);
            // A lower bound of what is stored, at every step.
            expect(table.earliestOpenSlaDue()).toBeLessThanOrEqual(earliest(table.entries()));
          }
          // Exact once loaded again.
          const { back } = await roundTrip(table);
          expect(back.earliestOpenSlaDue()).toBe(earliest(table.entries()));
        },
      ),
    );
  });

  it("gives a reused row no SLA from the threat that held it before", () => {
    const table = new ThreatTable();
    const plain = { status: "unsolved", severity: 2, assetId: null, updatedAt: "2026-01-02T03:04:05.678Z" };
    const sla = { since: "2026-01-02T03:04:05.678Z", due: "2026-02-01T03:04:05.678Z", breach: "added" };
    table.set("t1", { ...plain, sla, occurrence: 3 });
    table.delete("t1");
    table.set("t2", plain);
    expect(table.get("t2")).toEqual(plain);
    const seen: string[] = [];
    table.scanPackedSla((id) => seen.push(id));
    expect(seen).toEqual([]);
  });

  it("reads each SLA's due time, open issue and breach from the columns (the SLA index and `status` count from these)", () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 30 }), (values) => {
        const table = new ThreatTable();
        values.forEach((v, i) => table.set(`t${i}`, v));
        const seen = new Map<string, [number, boolean, boolean]>();
        table.scanPackedSla((id, due, open, breach) => seen.set(id, [due, open, breach]));
        const loose = new Set([...table.looseEntries()].map(([id]) => id));
        const expected = new Map<string, [number, boolean, boolean]>();
        values.forEach((v, i) => {
          const o = v as JsonObject;
          const s = o["sla"] as JsonObject | undefined;
          if (loose.has(`t${i}`) || s === undefined) return;
          const issue = o["issue"] as JsonObject | undefined;
          expected.set(`t${i}`, [
            Date.parse(String(s["due"])),
            issue?.["state"] === "open",
            s["breach"] !== undefined,
          ]);
        });
        expect(seen).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });

  it("loads a state written before the SLA was packed (codec threat-4, SLAs whole in raw), and packs its SLAs", () => {
    const text = readFileSync(new URL("./fixtures/snapshot-threat-4-workflow.json", import.meta.url), "utf8");
    const old = JSON.parse(text) as { collections: { threats: { raw: [string, Json][] } } };
    const table = decodeSnapshot(JSON.parse(text)).collections.get("threats");
    if (!(table instanceof ThreatTable)) throw new Error("threats did not decode to a table");
    expect(table.size).toBe(5);
    for (const [id, value] of old.collections.threats.raw) expect(table.get(id)).toEqual(value);
    // Only the accepted threat (an acceptance stays whole) is left outside the columns.
    expect([...table.looseEntries()].map(([id]) => id)).toEqual(["accepted"]);
  });

  it("writes a state with no SLA and no later occurrence exactly as before (codec threat-4, no new columns)", async () => {
    const table = new ThreatTable();
    table.set("t1", {
      status: "unsolved",
      severity: 2,
      assetId: null,
      updatedAt: "2026-01-02T03:04:05.678Z",
    });
    const { text } = await roundTrip(table);
    expect(text).toContain(`"codec":"threat-4"`);
    expect(text).toMatch(/^\{"format":"threatbridge-store","version":3,/);
    expect(text).not.toMatch(/slaSince|milestones|occurrence/);
    table.set("t2", {
      status: "unsolved",
      severity: 2,
      assetId: null,
      updatedAt: "2026-01-02T03:04:05.678Z",
      sla: {
        since: "2026-01-02T03:04:05.678Z",
        due: "2026-02-01T03:04:05.678Z",
        milestone: "SLA 2026-02-01",
      },
    });
    const after = (await roundTrip(table)).text;
    // Written under a codec and a store version of their own: a threatbridge that knows only
    // version 3 says it is too old (state_too_new) rather than drop every SLA or call the file corrupt.
    // Since store version 6 that codec is threat-7: the start after the earliest, the due time as
    // an index into the SLAs' distinct lengths (threat-compact.ts); since version 7 threat-8, which
    // packs those columns together (`colPack`).
    expect(after).toContain(`"codec":"threat-8"`);
    expect(after).toMatch(/^\{"format":"threatbridge-store","version":7,/);
    const block = (JSON.parse(after) as { collections: { threats: Record<string, Json> } }).collections
      .threats;
    expect(colPackOf(block)).toEqual({
      slaSince: [null, 0],
      slaDue: [null, 0],
      slaBreach: "00",
      slaMilestone: "01",
      occurrence: "00",
    });
    expect(after).toContain(
      `"slaBase":${Date.parse("2026-01-02T03:04:05.678Z")},"slaSpans":[${30 * 86_400_000}]`,
    );
    expect(() => decodeSnapshot({ ...(JSON.parse(after) as object), version: 8 })).toThrow(/newer than 7/);
    // A fixed cost for the columns packed together (their header names each binary column).
    expect(after.length - text.length).toBeLessThan(320);
  });

  it("refuses a snapshot whose SLA cells are malformed, naming the threat", async () => {
    const table = new ThreatTable();
    table.set("t1", {
      status: "unsolved",
      severity: 2,
      assetId: null,
      updatedAt: "2026-01-02T03:04:05.678Z",
      sla: {
        since: "2026-01-02T03:04:05.678Z",
        due: "2026-02-01T03:04:05.678Z",
        milestone: "SLA 2026-02-01",
      },
    });
    const view: StoreView = { gen: 1, seq: 1, meta: new Map(), collections: new Map([["threats", table]]) };
    const good = (await encodeSnapshot(view, pause)).join("");
    const damaged: [string, Json][] = [
      ["slaMilestone", 5],
      ["slaBreach", 3],
      ["slaDue", "soon"],
      ["slaSince", 1.5],
      ["occurrence", -1],
    ];
    type Doc = { collections: { threats: Record<string, Json> } };
    // In the pack (threat-8), and as threat-7 held them (store version 6), outside it.
    const inPack = (change: (columns: Record<string, Json>) => void): Doc => {
      const doc = JSON.parse(good) as Doc;
      const columns = colPackOf(doc.collections.threats);
      change(columns);
      doc.collections.threats["colPack"] = colPackSync(columns);
      return doc;
    };
    const outside = (change: (columns: Record<string, Json>) => void): Doc => {
      const doc = JSON.parse(good) as Doc;
      change(asThreat7(doc.collections.threats));
      return doc;
    };
    for (const place of [inPack, outside])
      for (const [column, cell] of damaged) {
        const doc = place((columns) => (columns[column] = [cell]));
        expect(() => decodeSnapshot(doc), column).toThrow(SnapshotFormatError);
        expect(() => decodeSnapshot(doc), column).toThrow(/threat t1/);
      }
    for (const place of [inPack, outside])
      expect(() => decodeSnapshot(place((columns) => (columns["slaDue"] = [])))).toThrow(
        /column slaDue has 0 cells, not 1/,
      );
    // A pack of something else, or naming a column it does not hold, is refused.
    const refused: [string, Doc][] = [
      ["not an object", inPack(() => undefined)],
      ["an unknown column", inPack((columns) => (columns["ids"] = ["t1"]))],
      ["a column also outside it", inPack(() => undefined)],
      ["a non-digit string", inPack((columns) => (columns["slaSince"] = "0"))],
    ];
    refused[0]![1].collections.threats["colPack"] = packedSync([1]);
    refused[2]![1].collections.threats["slaDue"] = [0];
    refused.push(["garbled", inPack(() => undefined)]);
    refused[4]![1].collections.threats["colPack"] = "12:AAAA";
    // Its binary columns (column-pack.ts): short, of another type, or with bytes past them.
    const bytesOf = (change: (bytes: Buffer) => Buffer): Doc => {
      const doc = JSON.parse(good) as Doc;
      const pack = doc.collections.threats["colPack"] as string;
      const bytes = change(inflateSync(Buffer.from(pack.slice(pack.indexOf(":") + 1), "base64")));
      doc.collections.threats["colPack"] = `${bytes.length}:${deflateSync(bytes).toString("base64")}`;
      return doc;
    };
    refused.push(
      ["a binary column short", bytesOf((b) => b.subarray(0, b.length - 1))],
      ["bytes past the columns", bytesOf((b) => Buffer.concat([b, Buffer.from([0])]))],
      [
        "a binary column of another type",
        bytesOf((b) => Buffer.from(b.toString("latin1").replace('"f64"', '"i32"'), "latin1")),
      ],
      [
        "a binary column twice",
        bytesOf((b) =>
          Buffer.from(b.toString("latin1").replace('"slaDue","i32"', '"slaSince","f64"'), "latin1"),
        ),
      ],
    );
    for (const [what, doc] of refused) expect(() => decodeSnapshot(doc), what).toThrow(SnapshotFormatError);
  });
});
