import { cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { importIntoDatabase, openStateImporting } from "../../src/state-import/index.js";
import { openStateStore, StateError, type StateStore } from "../../src/state/index.js";

/**
 * The one-time import of a state written before the SQLite store (src/state-import/): the fixture
 * in fixtures/threat-8 is what the previous release's `sync` wrote (store version 7, codec
 * `threat-8` snapshot plus its journal) for 13 threats with grouping, an SLA and notes on;
 * fixtures/threat-4-v3 and -v6 are the same release's store without workflow data (store version
 * 3, and 6 with groups).
 */

const FIXTURE = join(import.meta.dirname, "fixtures", "threat-8");
const FIRST = "015863dd-6ea4-479a-abcf-e4860059cc5b";
const THREATS_CURSOR = "eyJ2IjoxLCJlIjoidGhyZWF0cyIsInAiOjMxfQ.OG12pryrusS3IJBIQNczE-wQQEOgj5QB";

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function fixtureCopy(): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), "threatbridge-import-"));
  await cp(FIXTURE, dir, { recursive: true });
  return join(dir, "state.json");
}

function expectImported(store: StateStore): void {
  expect(store.stored).toBe(true);
  expect(store.size("threats")).toBe(9);
  expect(store.size("assets")).toBe(8);
  expect(store.size("groups")).toBe(6);
  // The journal's commits after the snapshot are in: its last cursor, sequence and slices.
  expect(store.getMeta("cursors")).toMatchObject({ threats: THREATS_CURSOR });
  expect(store.getMeta("seq")).toBe(45);
  expect(store.getMeta("renderKey")).toBe("8c1c9aeb25d98fa3");
  expect(store.get("threats", FIRST)).toMatchObject({
    status: "unsolved",
    severity: 2,
    issue: { repo: "acme/security-threats", number: 4, state: "open", id: 1023 },
    // The SLA the old store kept on the record is the sla feature's slice now (in feature_data).
    slices: {
      sla: expect.stringMatching(/"due":"2027-03-01T23:36:15.940Z".*"milestone":"SLA 2027-03-07"/) as unknown,
      notes: expect.stringContaining("SLA 2027-03-07") as unknown,
    },
  });
  expect(store.get("threats", FIRST)).not.toHaveProperty("sla");
}

describe("today's state files are imported once on first open", () => {
  it("the snapshot and its journal become the database and the saved cursors; the originals are kept as .bak", async () => {
    const path = await fixtureCopy();
    const original = await readFile(path);
    const store = await openStateImporting(path);
    expectImported(store);
    await store.close();
    expect((await readdir(dir ?? "")).sort()).toEqual([
      "state.db",
      "state.json",
      "state.json.bak",
      "state.json.journal.1.bak",
    ]);
    expect(await readFile(`${path}.bak`)).toEqual(original);
    // state.path is the saved cursors' document now, for a person to read.
    const doc = JSON.parse(await readFile(path, "utf8")) as { format: string; values: { cursors: unknown } };
    expect(doc.format).toBe("threatbridge-cursors");
    expect(doc.values.cursors).toMatchObject({ threats: THREATS_CURSOR });
    // The next open reads the database as it is (no second import).
    const again = await openStateImporting(path);
    expectImported(again);
    await again.close();
  });

  it("read-only (status, dry-run) imports in memory and leaves every file byte-for-byte", async () => {
    const path = await fixtureCopy();
    const before = await Promise.all(
      ["state.json", "state.json.journal.1"].map((n) => readFile(join(dir ?? "", n))),
    );
    const store = await openStateImporting(path, { readOnly: true });
    expectImported(store);
    await store.close();
    expect((await readdir(dir ?? "")).sort()).toEqual(["state.json", "state.json.journal.1"]);
    const after = await Promise.all(
      ["state.json", "state.json.journal.1"].map((n) => readFile(join(dir ?? "", n))),
    );
    expect(after).toEqual(before);
  });

  it("store versions 3 and 6 (codec threat-4: no workflow data, and groups in 6), as the previous release writes them, are imported with their journals", async () => {
    for (const [fixture, groups] of [
      ["threat-4-v3", 0],
      ["threat-4-v6", 2],
    ] as const) {
      dir = await mkdtemp(join(tmpdir(), "threatbridge-import-"));
      await cp(join(import.meta.dirname, "fixtures", fixture), dir, { recursive: true });
      const path = join(dir, "state.json");
      const store = await openStateImporting(path);
      expect(store.stored).toBe(true);
      // 34 threats written, t4 deleted by the first journal generation; two records kept whole.
      expect(store.size("threats")).toBe(35);
      expect(store.size("groups")).toBe(groups);
      expect(store.get("threats", "t4")).toBeUndefined();
      // The second generation's commit: t7's new severity, asset a4 and the watermark.
      expect(store.get("threats", "t7")).toMatchObject({
        severity: 4,
        issue: { repo: "acme/sec", number: 8 },
      });
      expect(store.get("assets", "a4")).toMatchObject({ name: "host4", deleted: true });
      expect(store.getMeta("cursors")).toEqual({ threats: "c2", assets: "a1" });
      expect(store.get("threats", "odd")).toMatchObject({ gone: true });
      await store.close();
      expect((await readdir(dir)).sort()).toEqual([
        "state.db",
        "state.json",
        "state.json.bak",
        "state.json.journal.1.bak",
        "state.json.journal.2.bak",
      ]);
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("older formats the previous release reads but never writes (a version-1 state file, store versions 2, 4 and 5, version 6 with codec threat-7 or a pack without CRC-32) are refused with state_too_old, untouched", async () => {
    dir = await mkdtemp(join(tmpdir(), "threatbridge-import-"));
    const path = join(dir, "state.json");
    const store = (version: number, collections: object): string =>
      JSON.stringify({ format: "threatbridge-store", version, gen: 1, seq: 1, meta: {}, collections });
    for (const [text, format] of [
      [JSON.stringify({ version: 1, cursors: { assets: null, threats: null } }), "a version-1 state file"],
      [store(2, {}), "store version 2"],
      [store(4, {}), "store version 4"],
      [store(5, {}), "store version 5"],
      [store(6, { threats: { codec: "threat-7" } }), "store version 6 with codec threat-7"],
      [
        store(6, { groups: { codec: "raw-pack", pack: "2:eJyLjgUAARUAuQ==" } }),
        "store version 6 with a raw-pack",
      ],
    ] as [string, string][]) {
      await writeFile(path, text);
      const refused = await openStateImporting(path).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(StateError);
      expect((refused as StateError).code).toBe("state_too_old");
      expect((refused as StateError).message).toContain(format);
      expect((refused as StateError).message).toMatch(/run the previous release once/);
      expect(await readFile(path, "utf8")).toBe(text);
      expect((await readdir(dir)).sort()).toEqual(["state.json"]);
    }
  });
});

describe("a crash during the import, or between the import and the saved cursors' document", () => {
  it("a crash mid-import leaves only the draft <db>.new, never a database: the next open imports again and removes it", async () => {
    const path = await fixtureCopy();
    await writeFile(join(dir ?? "", "state.db.new"), "half a database");
    await writeFile(join(dir ?? "", "state.db.new-wal"), "half a log");
    const store = await openStateImporting(path);
    expectImported(store);
    await store.close();
    expect((await readdir(dir ?? "")).filter((name) => name.includes(".new"))).toEqual([]);
  });

  it("a crash after the database is in place and before the document is written: the next open takes the cursors from the database, writes the document, and drops the database's copies", async () => {
    const path = await fixtureCopy();
    const snapshot = await readFile(path);
    expect(await importIntoDatabase(path)).toBe(true);
    // The crash: the database is in place, the journals deleted, state.json still the old snapshot.
    expect((await readdir(dir ?? "")).sort()).toEqual([
      "state.db",
      "state.json",
      "state.json.bak",
      "state.json.journal.1.bak",
    ]);
    expect(await readFile(path)).toEqual(snapshot);
    // The next open finds a database (no second import): the store alone completes the move.
    const store = await openStateStore(path);
    expectImported(store);
    await store.close();
    const doc = JSON.parse(await readFile(path, "utf8")) as { format: string; values: { cursors: unknown } };
    expect(doc.format).toBe("threatbridge-cursors");
    expect(doc.values.cursors).toMatchObject({ threats: THREATS_CURSOR });
    // The database kept no copy: without the document, the streams start from the beginning.
    await rm(path);
    const without = await openStateStore(path, { readOnly: true });
    expect(without.getMeta("cursors")).toBeUndefined();
    expect(without.size("threats")).toBe(9);
    await without.close();
  });

  it("the state module alone (openStateStore) does not read the previous store's files: only the import does", async () => {
    const path = await fixtureCopy();
    const store = await openStateStore(path, { readOnly: true });
    expect(store.stored).toBe(false);
    expect(store.size("threats")).toBe(0);
    await store.close();
    expect((await readdir(dir ?? "")).sort()).toEqual(["state.json", "state.json.journal.1"]);
  });
});
