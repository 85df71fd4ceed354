import { appendFile, copyFile, cp, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { databasePathOf, openStateStore, StateError, type Json } from "../../src/state/index.js";
import { SCHEMA_VERSION } from "../../src/state/tables.js";
import { sqlite } from "../../src/state/sqlite.js";
import { openStateImporting } from "../../src/state-import/index.js";
import { crcHex } from "../../src/state-import/packs.js";
import { stateFromStore } from "../../src/sync/index.js";
import { withTempDir } from "./helpers.js";

/**
 * Since state layout 3 the features' data is keyed by integers (src/state/tables.ts). A database of layout 2,
 * as the release before wrote it (fixtures/layout-2: state.db made by fixtures/make-database.mjs with that build,
 * from records.json), becomes today's layout on the first writable open (src/state-import/layouts.ts), in one transaction: every row
 * reads back as it was, an intent's old key `occurrence` is `markerNumber`, and a failure in the
 * middle leaves layout 2 whole. Read-only (`status`) it is refused with `state_too_old`.
 */

const FIXTURE = join(import.meta.dirname, "fixtures", "layout-2");
const COLLECTIONS = ["threats", "groups", "assets", "queue", "intents", "retryThreats", "retryAssets"];

type Fixture = { records: Record<string, Record<string, Json>>; meta: Record<string, Json> };

/** The fixture's rows as layout 3 reads them: the intents' `occurrence` renamed (a `markerNumber` it had wins). */
async function expectedRows(): Promise<Fixture> {
  const fixture = JSON.parse(await readFile(join(FIXTURE, "records.json"), "utf8")) as Fixture;
  const intents = fixture.records["intents"] ?? {};
  intents["i-1"] = {
    id: "i-1",
    kind: "create",
    threatId: "t-new",
    repo: "acme/sec",
    markerNumber: 2,
    startedAt: "x",
  };
  intents["i-4"] = {
    id: "i-4",
    kind: "create",
    threatId: "t-3",
    repo: "acme/sec",
    markerNumber: 4,
    startedAt: "w",
  };
  return fixture;
}

function sql(dbPath: string, query: string): Record<string, unknown>[] {
  const { DatabaseSync } = sqlite();
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    return db.prepare(query).all();
  } finally {
    db.close();
  }
}

async function withFixture(test: (path: string) => Promise<void>): Promise<void> {
  const { dir, cleanup } = await withTempDir();
  try {
    await copyFile(join(FIXTURE, "state.db"), join(dir, "state.db"));
    await test(join(dir, "state.json"));
  } finally {
    await cleanup();
  }
}

describe("the upgrade of a layout-2 database", () => {
  it("read-only (status) it is refused with state_too_old and left as it was", () =>
    withFixture(async (path) => {
      const error = await openStateStore(path, { readOnly: true }).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(StateError);
      expect((error as StateError).code).toBe("state_too_old");
      expect(sql(databasePathOf(path), "PRAGMA user_version")).toEqual([{ user_version: 2 }]);
    }));

  it("the first writable open upgrades it: every collection and meta value reads back as before, intents' `occurrence` is `markerNumber`, the SLA's times kept", () =>
    withFixture(async (path) => {
      const { records, meta } = await expectedRows();
      const store = await openStateImporting(path);
      for (const collection of COLLECTIONS)
        expect(Object.fromEntries(store.entries(collection))).toEqual(records[collection] ?? {});
      for (const [key, value] of Object.entries(meta)) expect(store.getMeta(key)).toEqual(value);
      await store.close();
      const file = databasePathOf(path);
      expect(sql(file, "PRAGMA user_version")).toEqual([{ user_version: SCHEMA_VERSION }]);
      // The slice time declared under layout 2 is kept, its columns computed again for every row.
      expect(sql(file, "SELECT name, due, unless FROM features WHERE due IS NOT NULL")).toEqual([
        { name: "sla", due: "$.due", unless: "$.breach" },
      ]);
      expect(
        sql(
          file,
          "SELECT t.id, f.open, f.done FROM feature_data AS f JOIN threats AS t ON t.n = f.subject WHERE f.due IS NOT NULL ORDER BY t.id",
        ),
      ).toEqual([
        { id: "t-closed", open: 0, done: 1 },
        { id: "t-open", open: 1, done: 0 },
      ]);
      // The old tables are gone, and so are their pages (vacuumed).
      expect(
        sql(file, "SELECT name FROM sqlite_schema WHERE name LIKE 'old_%' OR name = 'slice_features'"),
      ).toEqual([]);
      expect(sql(file, "PRAGMA freelist_count")).toEqual([{ freelist_count: 0 }]);
      // Read-only now (status): the same rows, the SLA's earliest due from its columns.
      const reader = await openStateStore(path, { readOnly: true });
      expect(Object.fromEntries(reader.entries("threats"))).toEqual(records["threats"]);
      const at = { due: "due", unless: "breach" };
      expect(stateFromStore(reader).threats.earliestTime("sla", at)).toBe(
        Date.parse("2026-03-01T00:00:00.000Z"),
      );
      await reader.close();
    }));

  it("a failure in the middle of the upgrade (its last statement refused) leaves layout 2 whole: its tables and rows as they were", () =>
    withFixture(async (path) => {
      const file = databasePathOf(path);
      const before = ["threats", "groups", "feature_data", "slice_features", "intents"].map((table) =>
        sql(file, `SELECT * FROM ${table} ORDER BY 1, 2`),
      );
      const { DatabaseSync } = sqlite();
      const db = new DatabaseSync(file);
      db.exec(`CREATE TRIGGER refuse BEFORE UPDATE ON intents BEGIN SELECT RAISE(ABORT, 'disk gone'); END`);
      db.close();
      await expect(openStateImporting(path)).rejects.toThrow("disk gone");
      expect(sql(file, "PRAGMA user_version")).toEqual([{ user_version: 2 }]);
      expect(
        ["threats", "groups", "feature_data", "slice_features", "intents"].map((table) =>
          sql(file, `SELECT * FROM ${table} ORDER BY 1, 2`),
        ),
      ).toEqual(before);
      expect(sql(file, "SELECT name FROM sqlite_schema WHERE name IN ('features', 'old_threats')")).toEqual(
        [],
      );
    }));
});

describe("an intent the store before SQLite journaled with `occurrence`", () => {
  it("is imported with it as `markerNumber`", async () => {
    const { dir, cleanup } = await withTempDir();
    try {
      await cp(join(import.meta.dirname, "fixtures", "threat-8"), dir, { recursive: true });
      const intent = {
        id: "i-old",
        kind: "create",
        threatId: "t9",
        repo: "acme/sec",
        occurrence: 3,
        startedAt: "x",
      };
      const json = JSON.stringify({ s: 47, c: [["s", "intents", "i-old", intent]], m: {} });
      await appendFile(join(dir, "state.json.journal.1"), `${crcHex(json)} ${json}\n`);
      const store = await openStateImporting(join(dir, "state.json"));
      const { occurrence: _, ...rest } = intent;
      expect(store.get("intents", "i-old")).toEqual({ ...rest, markerNumber: 3 });
      await store.close();
    } finally {
      await cleanup();
    }
  });
});
