import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import {
  SnapshotFormatError,
  decodeSnapshot,
  encodeSnapshot,
  type StoreView,
} from "../../src/state/snapshot-codec.js";
import { ThreatTable } from "../../src/state/threat-table.js";
import { unpackRows, unpackSlices } from "../../src/state/threat-compact.js";
import { DIGIT_COLUMNS } from "../../src/state/snapshot-threat-codec.js";
import type { Json } from "../../src/state/journal-line.js";
import { asThreat7, packedSync, slicesArbitrary } from "./helpers.js";
import { PackedSliceColumn } from "../../src/state/slice-pack.js";
import { StateError } from "../../src/state/errors.js";

const pause = (): Promise<void> => Promise.resolve();

/** A mapped threat as the engine stores it (the packed shape), or one of the rarer shapes. */
const iso = fc.integer({ min: 1, max: 4_102_444_800_000 }).map((ms) => new Date(ms).toISOString());
const repo = fc.constantFrom("acme/sec", "acme/Other-Repo", "org/x.y");
const packed: fc.Arbitrary<Json> = fc
  .record({
    status: fc.constantFrom("unsolved", "pending", "solved", "a status never seen"),
    severity: fc.integer({ min: 0, max: 4 }),
    assetId: fc.option(fc.constantFrom("a1", "a2", "a3"), { nil: null }),
    updatedAt: iso,
    number: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
    repo,
    base: fc.constantFrom("https://github.com", "https://ghe.example/api"),
    closed: fc.boolean(),
    hash: fc.string(),
    mapped: fc.boolean(),
    linked: fc.boolean(),
    // GitHub's issue id (kept for sub-issues): absent on older records, a large integer on new ones.
    issueId: fc.option(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), { nil: undefined }),
    // The plug-in features' slices (notes, project items...): packed as columns too.
    slices: fc.option(slicesArbitrary, { nil: undefined }),
  })
  .map((r): Json => {
    const value: { [k: string]: Json } = {
      status: r.status,
      severity: r.severity,
      assetId: r.assetId,
      updatedAt: r.updatedAt,
    };
    if (r.mapped) {
      value["issue"] = {
        repo: r.repo,
        number: r.number,
        url: `${r.base}/${r.repo}/issues/${r.number}`,
        state: r.closed ? "closed" : "open",
        hash: r.hash,
        ...(r.issueId === undefined ? {} : { id: r.issueId }),
      };
      if (r.linked) value["link"] = `${r.repo}#${r.number}`;
    }
    if (r.slices !== undefined) value["slices"] = r.slices;
    return value;
  });
/** Values outside the packed shape: kept whole. */
const loose: fc.Arbitrary<Json> = fc.oneof(
  packed.map((v) => ({ ...(v as { [k: string]: Json }), gone: true })),
  packed.map((v) => ({ ...(v as { [k: string]: Json }), severity: 9 })),
  packed.map((v) => {
    const o = v as { [k: string]: Json };
    const issue = o["issue"];
    return typeof issue === "object" && issue !== null && !Array.isArray(issue)
      ? { ...o, issue: { ...issue, id: 0.5 } }
      : o;
  }),
  packed.map((v) => ({ ...(v as { [k: string]: Json }), updatedAt: "2025-01-01T00:00:00+00:00" })),
  // Slices that are not strings by name (or none at all): outside the packed shape.
  packed.map((v) => ({ ...(v as { [k: string]: Json }), slices: {} })),
  packed.map((v) => ({ ...(v as { [k: string]: Json }), slices: { notes: "n", project: 7 } })),
  packed.map((v) => ({ ...(v as { [k: string]: Json }), slices: ["notes"] })),
  packed.map((v) => ({
    ...(v as { [k: string]: Json }),
    refused: { action: "update", reason: "locked", at: "x" },
  })),
  fc.json().map((text): Json => JSON.parse(text) as Json),
);
const value = fc.oneof({ weight: 4, arbitrary: packed }, { weight: 1, arbitrary: loose });
const id = fc.constantFrom("t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8");
const op = fc.oneof(
  fc.record({ kind: fc.constant("set" as const), id, value }),
  fc.record({ kind: fc.constant("delete" as const), id }),
);

async function roundTrip(table: ThreatTable): Promise<ThreatTable> {
  const view: StoreView = { gen: 1, seq: 1, meta: new Map(), collections: new Map([["threats", table]]) };
  const text = (await encodeSnapshot(view, pause)).join("");
  const back = decodeSnapshot(JSON.parse(text)).collections.get("threats");
  if (!(back instanceof ThreatTable)) throw new Error("threats did not decode to a table");
  return back;
}

describe("the threats' column table (the state held once, compactly)", () => {
  it("behaves as a Map of JSON values under any sequence of sets and deletes, and survives a snapshot", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
        const table = new ThreatTable();
        const model = new Map<string, Json>();
        for (const o of ops) {
          if (o.kind === "set") {
            table.set(o.id, o.value);
            model.set(o.id, o.value);
          } else expect(table.delete(o.id)).toBe(model.delete(o.id));
        }
        const expected = Object.fromEntries(model);
        expect(table.size).toBe(model.size);
        for (const [k, v] of model) expect(table.get(k)).toEqual(v);
        expect(Object.fromEntries(table.entries())).toEqual(expected);
        expect(Object.fromEntries((await roundTrip(table)).entries())).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });

  it("a copy is not changed by later writes to the original (what a compaction snapshots)", () => {
    const table = new ThreatTable();
    const record = {
      status: "unsolved",
      severity: 3,
      assetId: "a1",
      updatedAt: "2026-01-02T03:04:05.678Z",
      issue: {
        repo: "acme/sec",
        number: 7,
        url: "https://github.com/acme/sec/issues/7",
        state: "open",
        hash: "h",
      },
      link: "acme/sec#7",
    };
    table.set("t1", record);
    const copy = table.copy();
    table.set("t1", { ...record, status: "solved" });
    table.set("t2", record);
    table.delete("t1");
    expect(copy.get("t1")).toEqual(record);
    expect(copy.has("t2")).toBe(false);
    expect(table.get("t2")).toEqual(record);
  });

  it("tells a re-delivery from the columns: same status and the exact same updated_at string (spec, Events)", () => {
    const table = new ThreatTable();
    table.set("t1", {
      status: "unsolved",
      severity: 1,
      assetId: null,
      updatedAt: "2026-01-02T03:04:05.678Z",
    });
    expect(table.sameVersion("t1", "2026-01-02T03:04:05.678Z", "unsolved")).toBe(true);
    expect(table.sameVersion("t1", "2026-01-02T03:04:05.678Z", "solved")).toBe(false);
    // The same instant written differently is another version string: planned again, as before.
    expect(table.sameVersion("t1", "2026-01-02T03:04:05.678+00:00", "unsolved")).toBe(false);
    expect(table.sameVersion("t2", "2026-01-02T03:04:05.678Z", "unsolved")).toBeUndefined();
  });

  it("reads a packed row's brief (status, severity, issue, link: what the queue orders by) from the columns, the same as the whole row holds it", () => {
    fc.assert(
      fc.property(packed, (v) => {
        const table = new ThreatTable();
        table.set("t1", v);
        const whole = table.get("t1") as { [k: string]: Json };
        const issue = whole["issue"] as { [k: string]: Json } | undefined;
        expect(table.brief("t1")).toEqual({
          status: whole["status"],
          severity: whole["severity"],
          ...(issue
            ? { issue: { repo: issue["repo"], number: issue["number"], state: issue["state"] } }
            : {}),
          ...(whole["link"] !== undefined ? { link: whole["link"] } : {}),
        });
      }),
      { numRuns: 200 },
    );
    // A row kept whole has no brief in the columns: its reader takes the whole record.
    const table = new ThreatTable();
    table.set("gone", { status: "unsolved", severity: 1, assetId: null, updatedAt: "u", gone: true });
    expect(table.brief("gone")).toBeUndefined();
    expect(table.brief("absent")).toBeUndefined();
  });

  it("keeps rows outside the packed shape whole, and only those are loose (checked by readers)", () => {
    const table = new ThreatTable();
    table.set("ok", {
      status: "unsolved",
      severity: 2,
      assetId: null,
      updatedAt: "2026-01-02T03:04:05.678Z",
    });
    table.set("bad", { status: "unsolved", severity: 9, assetId: null, updatedAt: "u" });
    expect([...table.looseEntries()].map(([k]) => k)).toEqual(["bad"]);
    expect(table.get("bad")).toEqual({ status: "unsolved", severity: 9, assetId: null, updatedAt: "u" });
  });

  it("refuses a snapshot whose columns repeat an id", async () => {
    const table = new ThreatTable();
    table.set("t1", {
      status: "unsolved",
      severity: 2,
      assetId: null,
      updatedAt: "2026-01-02T03:04:05.678Z",
    });
    const view: StoreView = { gen: 1, seq: 1, meta: new Map(), collections: new Map([["threats", table]]) };
    const doc = JSON.parse((await encodeSnapshot(view, pause)).join("")) as {
      collections: { threats: Record<string, unknown[]> };
    };
    const block = doc.collections.threats;
    for (const name of [
      "ids",
      "status",
      "severity",
      "asset",
      "repo",
      "number",
      "closed",
      "hash",
      "url",
      "link",
      "updated",
    ])
      block[name]?.push(block[name][0]);
    expect(() => decodeSnapshot(doc)).toThrow(/appears twice/);
  });
});

/** A mapped threat as the engine stores it, with these slices (none when undefined). */
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

/** The threats block of a snapshot's text. */
function sliceBlock(text: string): Record<string, Json> {
  return (JSON.parse(text) as { collections: { threats: Record<string, Json> } }).collections.threats;
}

/** `pack` with one base64 character of its deflated bytes (past the zlib header) changed. */
function flipped(pack: string): string {
  const at = pack.indexOf(":") + 6;
  return pack.slice(0, at) + (pack[at] === "A" ? "B" : "A") + pack.slice(at + 1);
}

/**
 * A threat-8 or threat-7 block (no SLA) turned into the threat-6 form in place, its slices as
 * plain columns (and its rows kept whole as plain rows, its digit columns as arrays): the
 * checks of slice cells and columns are the same for all three codecs, and read clearer on plain ones.
 */
function asThreat6(block: Record<string, Json>): Record<string, Json> {
  asThreat7(block);
  block["codec"] = "threat-6";
  block["slices"] = unpackSlices(block["slicePack"] as string) as Json[][];
  delete block["slicePack"];
  if (typeof block["rawPack"] === "string") block["raw"] = unpackRows(block["rawPack"], "rawPack");
  delete block["rawPack"];
  for (const [name, offset] of Object.entries(DIGIT_COLUMNS)) {
    const digits = block[name];
    if (typeof digits === "string") block[name] = [...digits].map((d) => Number(d) - offset);
  }
  return block;
}

async function snapshotText(table: ThreatTable): Promise<string> {
  const view: StoreView = { gen: 1, seq: 1, meta: new Map(), collections: new Map([["threats", table]]) };
  return (await encodeSnapshot(view, pause)).join("");
}

describe("the plug-in features' slices in the table (ThreatRecord.slices: a string per feature name, on up to 100,000 threats)", () => {
  it("packs every record whose slices are strings by name, and gives each back equal, through a snapshot too", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(slicesArbitrary, { minLength: 1, maxLength: 20 }), async (all) => {
        const table = new ThreatTable();
        all.forEach((slices, i) => table.set(`t${i}`, mapped(i + 1, slices)));
        // None is kept whole: a slice no longer costs a record its packed form.
        expect([...table.looseEntries()]).toEqual([]);
        all.forEach((slices, i) => expect(table.get(`t${i}`)).toEqual(mapped(i + 1, slices)));
        const text = await snapshotText(table);
        // The snapshot text is parsed as JSON.parse parses it: `__proto__` stays an own key.
        const back = decodeSnapshot(JSON.parse(text)).collections.get("threats");
        if (!(back instanceof ThreatTable)) throw new Error("threats did not decode to a table");
        expect([...back.looseEntries()]).toEqual([]);
        all.forEach((slices, i) => expect(back.get(`t${i}`)).toEqual(mapped(i + 1, slices)));
      }),
      { numRuns: 200 },
    );
  });

  it("gives `__proto__` back as an own key, the record's prototype untouched", () => {
    const slices = JSON.parse(`{"__proto__":"p","notes":""}`) as Record<string, string>;
    const table = new ThreatTable();
    table.set("t1", mapped(1, slices));
    const back = (table.get("t1") as { slices: Record<string, string> }).slices;
    expect(Object.hasOwn(back, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(Object.entries(back).sort()).toEqual([
      ["__proto__", "p"],
      ["notes", ""],
    ]);
  });

  it("clears a row's slices when it is set without them, deleted, or its row reused; a copy keeps its own", () => {
    const table = new ThreatTable();
    table.set("t1", mapped(1, { notes: "n1", project: "p1" }));
    table.set("t2", mapped(2, { project: "p2" }));
    const copy = table.copy();
    table.set("t1", mapped(1, { notes: "n1b" }));
    expect(table.get("t1")).toEqual(mapped(1, { notes: "n1b" }));
    table.set("t2", mapped(2));
    expect(table.get("t2")).toEqual(mapped(2));
    table.delete("t1");
    // t3 takes the row t1 held: none of t1's slices come with it.
    table.set("t3", mapped(3));
    expect(table.get("t3")).toEqual(mapped(3));
    expect(copy.get("t1")).toEqual(mapped(1, { notes: "n1", project: "p1" }));
    expect(copy.get("t2")).toEqual(mapped(2, { project: "p2" }));
  });

  it("scans one feature's slices from its column, no record built (what a feature's `status` counts read)", () => {
    const table = new ThreatTable();
    table.set("t1", mapped(1, { notes: "n1", project: "p1" }));
    table.set("t2", mapped(2, { project: "p2" }));
    table.set("t3", mapped(3));
    const seen: [string, string][] = [];
    table.scanPackedSlices("project", (id, slice) => seen.push([id, slice]));
    expect(seen.sort()).toEqual([
      ["t1", "p1"],
      ["t2", "p2"],
    ]);
    const none: string[] = [];
    table.scanPackedSlices("absent", (id) => none.push(id));
    expect(none).toEqual([]);
  });

  it("writes them under codec threat-8 (store version 7): each name once, each column packed on its own", async () => {
    const table = new ThreatTable();
    for (let i = 1; i <= 3; i++) table.set(`t${i}`, mapped(i));
    const without = await snapshotText(table);
    // No slice: the state is written as before (codec threat-4, store version 3).
    expect(without).toContain(`"codec":"threat-4"`);
    expect(without).not.toMatch(/slice/);
    table.set("t1", mapped(1, { notes: "h=1;c=2", project: "i=3;f=4" }));
    table.set("t2", mapped(2, { project: "i=5;f=6" }));
    const text = await snapshotText(table);
    expect(text).toMatch(/^\{"format":"threatbridge-store","version":7,/);
    expect(text).toContain(`"codec":"threat-8"`);
    expect(text).toContain(`"sliceNames":["notes","project"],"slicePacks":["u8:`);
    expect(text.match(/"notes"/g)).toHaveLength(1);
    const columns = (block: Record<string, Json>): (string | null)[][] =>
      (block["slicePacks"] as string[]).map((pack, k) =>
        PackedSliceColumn.parse((block["sliceNames"] as string[])[k] ?? "", pack, 3).all(),
      );
    expect(columns(sliceBlock(text))).toEqual([
      ["h=1;c=2", null, null],
      ["i=3;f=4", "i=5;f=6", null],
    ]);
    // A reader that knows only version 7 says it is too old for a newer file.
    expect(() => decodeSnapshot({ ...(JSON.parse(text) as object), version: 8 })).toThrow(/newer than 7/);
    // A name whose every slice went away is not written.
    table.set("t1", mapped(1, { project: "i=3;f=4" }));
    const later = sliceBlock(await snapshotText(table));
    expect(later["sliceNames"]).toEqual(["project"]);
    expect(columns(later)).toEqual([["i=3;f=4", "i=5;f=6", null]]);
    // A slice that UTF-8 cannot carry (a lone surrogate) is written as JSON, and read back equal.
    table.set("t3", mapped(3, { project: "a\ud800b" }));
    const lone = sliceBlock(await snapshotText(table));
    expect((lone["slicePacks"] as string[])[0]).toMatch(/^json:/);
    expect(columns(lone)).toEqual([["i=3;f=4", "i=5;f=6", "a\ud800b"]]);
  });

  it("reads a feature's slice column only when something reads that feature's slices (an idle sync reads none)", async () => {
    const table = new ThreatTable();
    for (let i = 1; i <= 3; i++) table.set(`t${i}`, mapped(i, { notes: `n${i}`, project: `p${i}` }));
    table.set("whole", { ...(mapped(4, { notes: "n4" }) as Record<string, Json>), refused: "x" });
    const loaded = (): ThreatTable => {
      const back = decodeSnapshot(JSON.parse(text)).collections.get("threats");
      if (!(back instanceof ThreatTable)) throw new Error("threats did not decode to a table");
      return back;
    };
    const text = await snapshotText(table);
    const back = loaded();
    expect(back.inflatedSlices()).toEqual([]);
    // What an idle cycle reads of the threats: briefs, versions, the SLA, the index's scan.
    back.brief("t1");
    back.sameVersion("t1", "x", "unsolved");
    back.scanPackedSla(() => undefined);
    back.scanPacked(() => undefined);
    expect(back.get("whole")).toMatchObject({ slices: { notes: "n4" } });
    expect(back.inflatedSlices()).toEqual([]);
    const seen: string[] = [];
    back.scanPackedSlices("project", (id, slice) => seen.push(`${id}=${slice}`));
    expect(seen).toEqual(["t1=p1", "t2=p2", "t3=p3"]);
    expect(back.inflatedSlices()).toEqual(["project"]);
    // Written before read: a row's change is kept beside the pack; the others read from it.
    const again = loaded();
    again.set("t2", mapped(2, { notes: "changed" }));
    again.delete("t3");
    again.set("t5", mapped(5, { project: "p5" }));
    expect(again.inflatedSlices()).toEqual([]);
    expect(again.get("t1")).toEqual(mapped(1, { notes: "n1", project: "p1" }));
    expect(again.get("t2")).toEqual(mapped(2, { notes: "changed" }));
    expect(again.get("t3")).toBeUndefined();
    expect(again.get("t5")).toEqual(mapped(5, { project: "p5" }));
    const copy = again.copy();
    again.set("t1", mapped(1));
    expect(copy.get("t1")).toEqual(mapped(1, { notes: "n1", project: "p1" }));
    const round = decodeSnapshot(JSON.parse(await snapshotText(again))).collections.get("threats");
    expect(Object.fromEntries(round?.entries() ?? [])).toEqual(Object.fromEntries(again.entries()));
  });

  it("refuses a snapshot whose slice packs are damaged at load (header, CRC-32, names), and one written inconsistent when first read (state_corrupt)", async () => {
    const table = new ThreatTable();
    table.set("t1", mapped(1, { notes: "n" }));
    table.set("t2", mapped(2, { notes: "m" }));
    const good = await snapshotText(table);
    const pack = (sliceBlock(good)["slicePacks"] as string[])[0] ?? "";
    const body = pack.slice(pack.lastIndexOf(":") + 1);
    const at = 6;
    const damaged: [string, (block: Record<string, Json>) => void][] = [
      ["truncated", (b) => (b["slicePacks"] = [pack.slice(0, pack.length - 4)])],
      // One character of the compressed bytes changed: the CRC-32 refuses it at load.
      [
        "one byte changed",
        (b) =>
          (b["slicePacks"] = [
            pack.replace(body, body.slice(0, at) + (body[at] === "A" ? "B" : "A") + body.slice(at + 1)),
          ]),
      ],
      ["another form", (b) => (b["slicePacks"] = [pack.replace(/^u8:/, "x:")])],
      ["no length", (b) => (b["slicePacks"] = [pack.replace(/^u8:\d+:/, "u8:")])],
      ["empty", (b) => (b["slicePacks"] = [""])],
      ["no names", (b) => delete b["sliceNames"]],
      ["more packs than names", (b) => (b["slicePacks"] = [pack, pack])],
      ["a name twice", (b) => ((b["sliceNames"] = ["notes", "notes"]), (b["slicePacks"] = [pack, pack]))],
      ["one slicePack beside them", (b) => (b["slicePack"] = packedSync([["n", "m"]]))],
      ["unpacked slices beside them", (b) => (b["slices"] = [["n", "m"]])],
    ];
    for (const [what, damage] of damaged) {
      const doc = JSON.parse(good) as { collections: { threats: Record<string, Json> } };
      damage(doc.collections.threats);
      expect(() => decodeSnapshot(doc), what).toThrow(SnapshotFormatError);
    }
    // Well formed and checked, but not what its header says (only a writer's fault can make one):
    // refused when first read, as a damaged state, and nothing of it is read in part.
    const { crc32 } = await import("node:zlib");
    const { deflateSync } = await import("node:zlib");
    const packOf = (form: string, bytes: Buffer): string => {
      const z = deflateSync(bytes);
      return `${form}:${bytes.length}:${crc32(z).toString(16).padStart(8, "0")}:${z.toString("base64")}`;
    };
    const lengths = (count: number, ...cells: number[]): Buffer => {
      const b = Buffer.alloc(4 + 4 * cells.length);
      b.writeUInt32LE(count, 0);
      cells.forEach((n, i) => b.writeInt32LE(n, 4 + 4 * i));
      return b;
    };
    const inconsistent: [string, string][] = [
      ["three rows", packOf("u8", Buffer.concat([lengths(3, 1, 1, 1), Buffer.from("nmx")]))],
      ["lengths past the text", packOf("u8", Buffer.concat([lengths(2, 1, 5), Buffer.from("nm")]))],
      ["a length below -1", packOf("u8", Buffer.concat([lengths(2, -2, 1), Buffer.from("m")]))],
      ["json not rows", packOf("json", Buffer.from(JSON.stringify({ a: 1 })))],
      ["json a number cell", packOf("json", Buffer.from(JSON.stringify(["n", 5])))],
      ["json not JSON", packOf("json", Buffer.from('["n",'))],
      ["a length that lies", `u8:999:${packOf("u8", lengths(0)).split(":").slice(2).join(":")}`],
    ];
    for (const [what, bad] of inconsistent) {
      const doc = JSON.parse(good) as { collections: { threats: Record<string, Json> } };
      doc.collections.threats["slicePacks"] = [bad];
      const back = decodeSnapshot(doc).collections.get("threats");
      expect(() => back?.get("t1"), what).toThrow(StateError);
      expect(() => back?.get("t1"), what).toThrow(/slice column "notes" does not decode/);
    }
  });

  it("writes the columns of small numbers as a string of digits under threat-7, an array when a value is not one digit; refuses a bad digit", async () => {
    const table = new ThreatTable();
    table.set("t1", mapped(1, { notes: "n" }));
    table.set("t2", { ...mapped(2, { notes: "m" }), severity: 4 });
    const text = await snapshotText(table);
    const block = sliceBlock(text);
    expect(block["severity"]).toBe("24");
    expect(block["closed"]).toBe("00");
    expect(block["link"]).toBe("11");
    // repo is written +1 (-1, no issue, is "0").
    expect(block["repo"]).toBe("11");
    expect(block["number"]).toEqual([1, 2]);
    // Ten statuses: an index of 10 is not one digit, so the column is an array.
    const many = new ThreatTable();
    for (let i = 0; i <= 10; i++) many.set(`t${i}`, { ...mapped(i + 1, { notes: "n" }), status: `s${i}` });
    expect(sliceBlock(await snapshotText(many))["status"]).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (const [column, bad] of [
      ["severity", "1x"],
      ["closed", "02"],
      ["repo", "1"],
    ] as const) {
      const doc = JSON.parse(text) as { collections: { threats: Record<string, Json> } };
      doc.collections.threats[column] = bad;
      expect(() => decodeSnapshot(doc), column).toThrow(SnapshotFormatError);
    }
    // A string column in an older codec is not read as digits.
    const old = JSON.parse(text) as { collections: { threats: Record<string, Json> } };
    asThreat6(old.collections.threats);
    old.collections.threats["closed"] = "00";
    expect(() => decodeSnapshot(old)).toThrow(/column closed is not an array/);
  });

  it("refuses a threat-7 snapshot (store version 6) whose slicePack is damaged (not base64, not deflate, not columns, or missing its names)", async () => {
    const table = new ThreatTable();
    table.set("t1", mapped(1, { notes: "n" }));
    table.set("t2", mapped(2, { notes: "m" }));
    const written = JSON.parse(await snapshotText(table)) as {
      collections: { threats: Record<string, Json> };
    };
    asThreat7(written.collections.threats);
    const good = JSON.stringify(written);
    const pack = sliceBlock(good)["slicePack"] as string;
    const damaged: [string, (block: Record<string, Json>) => void][] = [
      ["truncated", (b) => (b["slicePack"] = pack.slice(0, pack.length - 4))],
      ["not base64 deflate", (b) => (b["slicePack"] = "15:bm90IGRlZmxhdGU=")],
      ["no length", (b) => (b["slicePack"] = pack.slice(pack.indexOf(":") + 1))],
      ["another length", (b) => (b["slicePack"] = `1${pack}`)],
      // One character of the deflated bytes changed: zlib's Adler-32 (or inflate itself) refuses it.
      ["one byte changed", (b) => (b["slicePack"] = flipped(pack))],
      ["empty", (b) => (b["slicePack"] = "")],
      ["a cell not a string", (b) => (b["slicePack"] = packedSync([[5, "m"]]))],
      ["not columns", (b) => (b["slicePack"] = packedSync({ a: 1 }))],
      ["a column short", (b) => (b["slicePack"] = packedSync([["n"]]))],
      ["no names", (b) => delete b["sliceNames"]],
      ["unpacked slices beside it", (b) => (b["slices"] = [["n", "m"]])],
    ];
    for (const [what, damage] of damaged) {
      const doc = JSON.parse(good) as { collections: { threats: Record<string, Json> } };
      damage(doc.collections.threats);
      expect(() => decodeSnapshot(doc), what).toThrow(SnapshotFormatError);
    }
  });

  it("loads a state written before the slices were packed (codec threat-5, records with slices whole in raw), and packs them", () => {
    const text = readFileSync(new URL("./fixtures/snapshot-threat-5-slices.json", import.meta.url), "utf8");
    const old = JSON.parse(text) as {
      collections: { threats: { codec: string; raw: [string, Json][] } };
    };
    expect(old.collections.threats.codec).toBe("threat-5");
    const table = decodeSnapshot(JSON.parse(text)).collections.get("threats");
    if (!(table instanceof ThreatTable)) throw new Error("threats did not decode to a table");
    expect(table.size).toBe(4);
    expect(old.collections.threats.raw.map(([id]) => id)).toEqual(["noted", "both"]);
    for (const [id, value] of old.collections.threats.raw) expect(table.get(id)).toEqual(value);
    expect([...table.looseEntries()]).toEqual([]);
  });

  it("gives at most 64 feature names a column: a record naming more is kept whole, equal, in memory and in a snapshot", async () => {
    const names = (from: number, count: number): Record<string, string> =>
      Object.fromEntries(Array.from({ length: count }, (_, k) => [`f${from + k}`, `v${from + k}`]));
    const table = new ThreatTable();
    table.set("t1", mapped(1, names(0, 64)));
    table.set("t2", mapped(2, names(60, 5)));
    table.set("t3", mapped(3, names(0, 3)));
    expect([...table.looseEntries()].map(([id]) => id)).toEqual(["t2"]);
    expect(table.get("t2")).toEqual(mapped(2, names(60, 5)));
    // A snapshot naming more than 64 (not one this table writes) loads too: the row beyond goes whole.
    const doc = JSON.parse(await snapshotText(table)) as { collections: { threats: Record<string, Json> } };
    const block = asThreat6(doc.collections.threats);
    block["sliceNames"] = [...(block["sliceNames"] as string[]), "extra"];
    block["slices"] = [...(block["slices"] as Json[][]), ["late", null]];
    const back = decodeSnapshot(doc).collections.get("threats");
    if (!(back instanceof ThreatTable)) throw new Error("threats did not decode to a table");
    expect(back.get("t1")).toEqual(mapped(1, { ...names(0, 64), extra: "late" }));
    expect(back.get("t2")).toEqual(mapped(2, names(60, 5)));
    expect(back.get("t3")).toEqual(mapped(3, names(0, 3)));
    // t1 no longer fits, so its 64 names took no column: t2's five fit beside t3's three.
    expect([...back.looseEntries()].map(([id]) => id)).toEqual(["t1"]);
  });

  it("refuses a snapshot whose slice cells or columns are malformed, naming what", async () => {
    const table = new ThreatTable();
    table.set("t1", mapped(1, { notes: "n" }));
    const good = await snapshotText(table);
    const damaged: [Json, Json, RegExp][] = [
      [["notes"], [[5]], /threat t1: slices is malformed/],
      [["notes"], [[{ a: "b" }]], /threat t1: slices is malformed/],
      [["notes", "notes"], [["a"], ["b"]], /slice name appears twice/],
      [["notes"], [["a"], ["b"]], /2 slice columns for 1 names/],
      [["notes"], [[]], /slice column "notes" has 0 cells, not 1/],
    ];
    for (const [names, columns, message] of damaged) {
      const doc = JSON.parse(good) as { collections: { threats: Record<string, Json> } };
      asThreat6(doc.collections.threats);
      doc.collections.threats["sliceNames"] = names;
      doc.collections.threats["slices"] = columns;
      expect(() => decodeSnapshot(doc), JSON.stringify(columns)).toThrow(SnapshotFormatError);
      expect(() => decodeSnapshot(doc), JSON.stringify(columns)).toThrow(message);
    }
    const half = JSON.parse(good) as { collections: { threats: Record<string, Json> } };
    asThreat6(half.collections.threats);
    delete half.collections.threats["sliceNames"];
    expect(() => decodeSnapshot(half)).toThrow(/sliceNames and slices come together/);
  });
});

describe("snapshots written before the asset table (store version 2, codec threat-3)", () => {
  it("are read: asset ids stored in the column itself", () => {
    const doc = {
      format: "threatbridge-store",
      version: 2,
      gen: 1,
      seq: 3,
      meta: {},
      collections: {
        threats: {
          codec: "threat-3",
          ids: ["t1", "t2"],
          status: [0, 0],
          severity: [3, 1],
          asset: ["a-1", null],
          repo: [0, -1],
          number: [7, 0],
          closed: [1, 0],
          hash: ["h", ""],
          url: [0, 0],
          link: [1, 0],
          updated: [Date.UTC(2026, 0, 2), Date.UTC(2026, 0, 3)],
          rest: [],
          raw: [],
          repos: ["acme/sec"],
          statuses: ["unsolved"],
          bases: ["https://github.com"],
        },
      },
    };
    const table = decodeSnapshot(doc).collections.get("threats");
    expect(table?.get("t1")).toEqual({
      status: "unsolved",
      severity: 3,
      assetId: "a-1",
      issue: {
        repo: "acme/sec",
        number: 7,
        url: "https://github.com/acme/sec/issues/7",
        state: "closed",
        hash: "h",
      },
      link: "acme/sec#7",
      updatedAt: "2026-01-02T00:00:00.000Z",
    });
    expect(table?.get("t2")).toEqual({
      status: "unsolved",
      severity: 1,
      assetId: null,
      updatedAt: "2026-01-03T00:00:00.000Z",
    });
  });
});
