import { isAscii } from "node:buffer";
import { readFileSync } from "node:fs";
import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { Json } from "../../src/state/journal-line.js";
import { StateError } from "../../src/state/errors.js";
import { packCrc, PackedRows } from "../../src/state/packed-rows.js";
import {
  decodeSnapshot,
  encodeSnapshot,
  type StoreView,
  SnapshotFormatError,
  STORE_FORMAT,
  STORE_FORMAT_VERSION,
} from "../../src/state/snapshot-codec.js";

/** A snapshot document holding one raw collection with these rows. */
function doc(rows: unknown): unknown {
  return {
    format: STORE_FORMAT,
    version: STORE_FORMAT_VERSION,
    gen: 1,
    seq: 3,
    meta: {},
    collections: { assets: { codec: "raw", rows } },
  };
}

describe("a snapshot's raw collections (src/state/README-store.md: the snapshot is the store of record)", () => {
  it("are read back as [key, value] rows, any JSON value included", () => {
    const rows = [
      ["a1", { name: "web-1", type: "host", deleted: false, updatedAt: "t" }],
      ["a2", null],
      ["a3", [1, "x"]],
    ];
    const view = decodeSnapshot(doc(rows));
    expect([...(view.collections.get("assets")?.entries() ?? [])]).toEqual(rows);
    expect(view.seq).toBe(3);
  });

  it("refuse a row that is not a [key, value] pair: the file is damaged, not read in part", () => {
    for (const bad of [
      [["a1"]],
      [["a1", 1, 2]],
      [[7, { name: "x" }]],
      [{ a1: 1 }],
      [["a1", 1], "a2"],
      { a1: 1 },
    ]) {
      expect(() => decodeSnapshot(doc(bad)), JSON.stringify(bad)).toThrow(SnapshotFormatError);
    }
  });
});

/** Every collection's rows, for deep comparison (a threat table's in its own order). */
function contents(view: StoreView): Record<string, [string, Json][]> {
  return Object.fromEntries(
    [...view.collections].map(([name, rows]) => [
      name,
      [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    ]),
  );
}

describe("a snapshot's text (the store reads it as latin1 when it is ASCII, outside V8's heap)", () => {
  it("is ASCII whatever its values hold: every other character is written as its \\u escape, and read back the same", async () => {
    const rows: [string, Json][] = [
      ["a1", { name: "Chen García", type: "person", note: '\u{1F600} \u2028 \ud800 é\\é "ü"' }],
      ["ünïcödé key", "日本語"],
    ];
    const view: StoreView = {
      gen: 1,
      seq: 1,
      meta: new Map([["who", "Zoë"]]),
      collections: new Map([["assets", new Map(rows)]]),
    };
    const text = (await encodeSnapshot(view, () => Promise.resolve())).join("");
    expect(isAscii(Buffer.from(text, "utf8"))).toBe(true);
    const back = decodeSnapshot(JSON.parse(Buffer.from(text, "utf8").toString("latin1")));
    expect([...(back.collections.get("assets")?.entries() ?? [])]).toEqual(rows);
    expect(back.meta.get("who")).toBe("Zoë");
  });
});

describe("a store-version-6 snapshot (codec threat-7) with every feature's data", () => {
  const text = readFileSync(new URL("./fixtures/snapshot-threat-7-everything.json", import.meta.url), "utf8");
  const v5 = readFileSync(new URL("./fixtures/snapshot-threat-6-everything.json", import.meta.url), "utf8");

  it("loads identically once written again as version 7 (codec threat-8), and as the version-5 file it was written from", async () => {
    const old = decodeSnapshot(JSON.parse(text));
    expect(text).toMatch(/"version": 6,/);
    expect(text).toContain(`"codec": "threat-7"`);
    const rewritten = (await encodeSnapshot(old, () => Promise.resolve())).join("");
    expect(rewritten).toMatch(/^\{"format":"threatbridge-store","version":7,/);
    expect(rewritten).toContain(`"codec":"threat-8"`);
    expect(rewritten).toContain(`"colPack":"`);
    expect(rewritten).toContain(`"sliceNames":["project","notes"],"slicePacks":["u8:`);
    const again = decodeSnapshot(JSON.parse(rewritten));
    expect(contents(again)).toEqual(contents(old));
    expect(contents(decodeSnapshot(JSON.parse(v5)))).toEqual(contents(old));
  });
});

describe("a store-version-5 snapshot (codec threat-6) with every feature's data", () => {
  const text = readFileSync(new URL("./fixtures/snapshot-threat-6-everything.json", import.meta.url), "utf8");

  it("loads identically once written again as version 7 (codec threat-8): threats, SLAs, slices, acceptances, groups", async () => {
    const old = decodeSnapshot(JSON.parse(text));
    const rewritten = (await encodeSnapshot(old, () => Promise.resolve())).join("");
    expect(rewritten).toMatch(/^\{"format":"threatbridge-store","version":7,/);
    expect(rewritten).toContain(`"codec":"threat-8"`);
    // The rows kept whole (the risk acceptance's, the gone one) and the groups are packed too.
    expect(rewritten).toContain(`"raw":[],"rawPack":"`);
    expect(rewritten).toMatch(/"groups":\{"codec":"raw-pack","crc":"[0-9a-f]{8}","pack":"/);
    expect(rewritten).toContain(`"assets":{"codec":"raw","rows":[`);
    const again = decodeSnapshot(JSON.parse(rewritten));
    expect(contents(again)).toEqual(contents(old));
    expect([again.gen, again.seq, [...again.meta]]).toEqual([old.gen, old.seq, [...old.meta]]);
    // What the fixture holds, read from the old file: the features' data is all there.
    const threats = old.collections.get("threats");
    expect(threats?.size).toBe(7);
    expect(threats?.get("t2")).toMatchObject({
      sla: { since: "2026-11-18T11:06:42.000Z", due: "2026-11-25T11:06:42.000Z", breach: "added" },
      slices: { notes: "Nb2", project: "1002\tacme/sec#2\tSeverity\tx2" },
    });
    expect(threats?.get("t5")).toMatchObject({ acceptance: { by: "someone", step: "announced" } });
    expect(threats?.get("t6")).toMatchObject({ occurrence: 2 });
    expect(threats?.get("gone")).toMatchObject({ gone: true });
    expect(old.collections.get("groups")?.get("group:asset:a1")).toMatchObject({
      members: { t3: { title: "Three <x>", severity: 3 } },
      parents: { "acme/sec": { attached: ["t1", "t3"] } },
      slices: { project: "i=1" },
    });
    expect(old.collections.get("groups")?.get("group:title:x")).toMatchObject({ mode: "single" });
  });

  it("refuses a packed collection or a packed threats' raw that is damaged (state_corrupt, not read in part)", async () => {
    const good = (await encodeSnapshot(decodeSnapshot(JSON.parse(text)), () => Promise.resolve())).join("");
    type Doc = { collections: Record<string, Record<string, Json>> };
    const pack = (value: unknown): string =>
      `${Buffer.byteLength(JSON.stringify(value))}:${deflateSync(Buffer.from(JSON.stringify(value))).toString("base64")}`;
    const damaged: [string, (doc: Doc) => void][] = [
      [
        "groups truncated",
        (d) => (d.collections["groups"]!["pack"] = String(d.collections["groups"]!["pack"]).slice(0, 20)),
      ],
      ["groups not rows", (d) => (d.collections["groups"]!["pack"] = pack({ a: 1 }))],
      ["groups row without a value", (d) => (d.collections["groups"]!["pack"] = pack([["k"]]))],
      ["rawPack garbled", (d) => (d.collections["threats"]!["rawPack"] = "AAAA")],
      ["rawPack beside raw rows", (d) => (d.collections["threats"]!["raw"] = [["x", 1]])],
      ["rawPack rows keyed by numbers", (d) => (d.collections["threats"]!["rawPack"] = pack([[1, {}]]))],
    ];
    for (const [what, damage] of damaged) {
      const doc = JSON.parse(good) as Doc;
      damage(doc);
      expect(() => decodeSnapshot(doc), what).toThrow(SnapshotFormatError);
      // The groups as version 6 wrote them (no CRC-32): unpacked and checked at load, refused there.
      if (!what.startsWith("groups")) continue;
      delete doc.collections["groups"]!["crc"];
      expect(() => decodeSnapshot(doc), `${what}, version 6`).toThrow(SnapshotFormatError);
      // A pack whose CRC-32 matches yet does not unpack (only a writer's fault makes one): refused
      // when the groups are first read, as a damaged state, and not read in part.
      doc.collections["groups"]!["crc"] = packCrc(String(doc.collections["groups"]!["pack"]));
      const groups = decodeSnapshot(doc).collections.get("groups");
      expect(() => groups?.get("group:asset:a1"), `${what}, its CRC-32 matching`).toThrow(StateError);
    }
  });

  it("unpacks the groups when first read, and writes an unread collection's pack again as it is", async () => {
    const written = (await encodeSnapshot(decodeSnapshot(JSON.parse(text)), () => Promise.resolve())).join(
      "",
    );
    const view = decodeSnapshot(JSON.parse(written));
    const groups = view.collections.get("groups");
    if (!(groups instanceof PackedRows)) throw new Error("the groups did not load packed");
    const pack = groups.unread;
    expect(pack).not.toBeNull();
    // A compaction's copy of an unread collection is the same pack, written again.
    const again = (await encodeSnapshot(view, () => Promise.resolve())).join("");
    expect(again).toBe(written);
    expect(groups.unread).toBe(pack);
    // Read, it is unpacked once; a change is written as any.
    expect(groups.get("group:title:x")).toMatchObject({ mode: "single" });
    expect(groups.unread).toBeNull();
    groups.delete("group:title:x");
    const changed = decodeSnapshot(
      JSON.parse((await encodeSnapshot(view, () => Promise.resolve())).join("")),
    );
    expect([...(changed.collections.get("groups")?.keys() ?? [])]).toEqual(["group:asset:a1"]);
  });

  it("fails as damaged, not read in part, when torn anywhere (JSON.parse or the decoder refuses it)", () => {
    const rewrittenDoc = (cut: string): unknown => JSON.parse(cut);
    for (let end = 0; end < text.length; end += 97) {
      const torn = text.slice(0, end);
      expect(() => decodeSnapshot(rewrittenDoc(torn)), `cut at ${end}`).toThrow();
    }
  });
});
