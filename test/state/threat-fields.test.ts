import { copyFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { StateError } from "../../src/state/index.js";
import { databasePathOf, openStateStore, type Json } from "../../src/state/index.js";
import { SCHEMA_VERSION } from "../../src/state/tables.js";
import { sqlite } from "../../src/state/sqlite.js";
import { openStateImporting } from "../../src/state-import/index.js";
import { withTempDir } from "./helpers.js";

/**
 * State layout 4 keeps a threat's common fields in columns of their own (src/state/tables.ts
 * FIELDS), each repository and asset id once (`repos`, `asset_ids`), and the rest of the record as
 * its JSON: every value reads back as written, whatever it holds; a database of layout 3, as the
 * release before wrote it (fixtures/layout-3, made by fixtures/make-database.mjs with that build), is copied into
 * the new layout on the first writable open, in one transaction (src/state-import/layouts.ts).
 */

function sql(dbPath: string, query: string): Record<string, unknown>[] {
  const { DatabaseSync } = sqlite();
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    return db
      .prepare(query)
      .all()
      .map((row) => ({ ...row }));
  } finally {
    db.close();
  }
}

async function withState<T>(test: (path: string) => Promise<T>): Promise<T> {
  const { dir, cleanup } = await withTempDir();
  try {
    return await test(join(dir, "state.json"));
  } finally {
    await cleanup();
  }
}

const THREAT = {
  status: "unsolved",
  severity: 3,
  assetId: "a1",
  updatedAt: "2026-01-01T00:00:00.000Z",
  issue: {
    repo: "acme/sec",
    number: 7,
    url: "https://github.com/acme/sec/issues/7",
    state: "open",
    hash: "h",
  },
  link: "acme/sec#7",
};

describe("a threat's fields in columns of their own", () => {
  it("are written to their columns, the repository and asset id once each, and the JSON keeps the rest", () =>
    withState(async (path) => {
      const store = await openStateStore(path);
      store.set("threats", "t1", { ...THREAT, gone: true });
      store.set("threats", "t2", { ...THREAT, issue: { ...THREAT.issue, number: 8, id: 80 } });
      await store.commit();
      await store.close();
      const file = databasePathOf(path);
      expect(
        sql(
          file,
          `SELECT id, status, severity, asset, updated_at, repo, number, issue_state, url, hash, link, value, open
             FROM threats ORDER BY id`,
        ),
      ).toEqual([
        {
          id: "t1",
          status: "unsolved",
          severity: 3,
          asset: 1,
          updated_at: "2026-01-01T00:00:00.000Z",
          repo: 1,
          number: 7,
          issue_state: "open",
          url: "https://github.com/acme/sec/issues/7",
          hash: "h",
          link: "acme/sec#7",
          value: '{"gone":true}',
          open: 0,
        },
        expect.objectContaining({ id: "t2", number: 8, value: '{"issue":{"id":80}}', open: 1 }),
      ]);
      expect(sql(file, "SELECT n, name FROM repos")).toEqual([{ n: 1, name: "acme/sec" }]);
      expect(sql(file, "SELECT n, id FROM asset_ids")).toEqual([{ n: 1, id: "a1" }]);
    }));

  it("a field missing, null or of another type stays in the JSON: every value reads back as written (property)", () =>
    withState(async (path) => {
      const store = await openStateStore(path);
      const scalar = fc.oneof(
        fc.string(),
        fc.integer(),
        fc.constantFrom(2 ** 60, -(2 ** 53)),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.boolean(),
        fc.constant(null),
      );
      const field = fc.option(scalar, { nil: undefined });
      const issue = fc.record(
        { repo: field, number: field, state: field, url: field, hash: field, id: field },
        { requiredKeys: [] },
      );
      const threat = fc.record(
        {
          status: field,
          severity: field,
          assetId: field,
          updatedAt: field,
          link: field,
          issue: fc.oneof(issue, scalar),
          other: fc.dictionary(fc.string(), scalar, { maxKeys: 2 }),
        },
        { requiredKeys: [] },
      );
      // JSON has no undefined: a key so generated is absent.
      const plain = (value: unknown): Json => JSON.parse(JSON.stringify(value)) as Json;
      let i = 0;
      fc.assert(
        fc.property(fc.array(threat, { minLength: 1, maxLength: 5 }), (threats) => {
          const written = threats.map((t) => [`t${i++}`, plain(t)] as const);
          for (const [id, value] of written) store.set("threats", id, value);
          for (const [id, value] of written) expect(store.get("threats", id)).toEqual(value);
        }),
        { numRuns: 60 },
      );
      await store.commit();
      const all = Object.fromEntries(store.entries("threats"));
      await store.close();
      const again = await openStateStore(path, { readOnly: true });
      expect(Object.fromEntries(again.entries("threats"))).toEqual(all);
      await again.close();
    }));

  it("the threat of an issue is found whatever the case of its repository's name, and an asset's threats by its id", () =>
    withState(async (path) => {
      const store = await openStateStore(path);
      store.set("threats", "t1", THREAT);
      store.set("threats", "t2", {
        ...THREAT,
        assetId: "a2",
        issue: { ...THREAT.issue, repo: "Acme/Other" },
      });
      await store.commit();
      const queries = store.threatQueries;
      expect(queries?.threatOfIssue("ACME/SEC", 7)).toBe("t1");
      expect(queries?.threatOfIssue("acme/other", 7)).toBe("t2");
      expect(queries?.threatOfIssue("acme/none", 7)).toBeUndefined();
      expect(queries?.repositories()).toEqual(["Acme/Other", "acme/sec"]);
      expect(queries?.threatsOfAsset("a2")).toEqual(["t2"]);
      expect([...(queries?.issues() ?? [])]).toEqual([
        ["t1", "acme/sec", 7],
        ["t2", "Acme/Other", 7],
      ]);
      await store.close();
    }));
});

const FIXTURE = join(import.meta.dirname, "fixtures", "layout-3");
const COLLECTIONS = ["threats", "groups", "assets", "queue", "intents", "retryThreats", "retryAssets"];
type Fixture = { records: Record<string, Record<string, Json>>; meta: Record<string, Json> };

async function withFixture(test: (path: string) => Promise<void>): Promise<void> {
  await withState(async (path) => {
    await copyFile(join(FIXTURE, "state.db"), databasePathOf(path));
    await test(path);
  });
}

describe("the upgrade of a layout-3 database to layout 4", () => {
  it("read-only (status) it is refused with state_too_old and left as it was", () =>
    withFixture(async (path) => {
      const error = await openStateStore(path, { readOnly: true }).catch((err: unknown) => err);
      expect((error as StateError).code).toBe("state_too_old");
      expect(sql(databasePathOf(path), "PRAGMA user_version")).toEqual([{ user_version: 3 }]);
    }));

  it("the first writable open copies every threat's fields into their columns: every row reads back as before", () =>
    withFixture(async (path) => {
      const { records, meta } = JSON.parse(await readFile(join(FIXTURE, "records.json"), "utf8")) as Fixture;
      const store = await openStateImporting(path);
      for (const collection of COLLECTIONS)
        expect(Object.fromEntries(store.entries(collection))).toEqual(records[collection] ?? {});
      for (const [key, value] of Object.entries(meta)) expect(store.getMeta(key)).toEqual(value);
      expect(store.threatQueries?.threatOfIssue("acme/other", 1)).toBe("t-other");
      await store.close();
      const file = databasePathOf(path);
      expect(sql(file, "PRAGMA user_version")).toEqual([{ user_version: SCHEMA_VERSION }]);
      expect(sql(file, "SELECT id, repo, number, issue_state, value FROM threats ORDER BY id")).toEqual([
        { id: "t-closed", repo: 1, number: 8, issue_state: "closed", value: '{"issue":{"id":880}}' },
        // A null asset id stays in the JSON, as does what is not a field.
        {
          id: "t-gone",
          repo: null,
          number: null,
          issue_state: null,
          value: expect.stringMatching(/^\{"assetId":null,"gone":true,"refused":/),
        },
        { id: "t-open", repo: 1, number: 7, issue_state: "open", value: "{}" },
        { id: "t-other", repo: 2, number: 1, issue_state: "open", value: "{}" },
      ]);
      expect(sql(file, "SELECT name FROM repos ORDER BY n")).toEqual([
        { name: "acme/sec" },
        { name: "Acme/Other" },
      ]);
      // The SLA's times (keyed by the threats' `n`, kept) still join their threats.
      expect(
        sql(
          file,
          "SELECT t.id, f.open, f.done FROM feature_data AS f JOIN threats AS t ON t.n = f.subject WHERE f.due IS NOT NULL ORDER BY t.id",
        ),
      ).toEqual([
        { id: "t-closed", open: 0, done: 1 },
        { id: "t-open", open: 1, done: 0 },
      ]);
      expect(sql(file, "SELECT name FROM sqlite_schema WHERE name LIKE 'old_%'")).toEqual([]);
      expect(sql(file, "PRAGMA freelist_count")).toEqual([{ freelist_count: 0 }]);
    }));

  it("a value of another type or beyond a safe integer stays in the JSON: it reads back as the JSON says", () =>
    withFixture(async (path) => {
      const odd = {
        status: 7,
        severity: 2 ** 60,
        assetId: null,
        updatedAt: "2026-01-07T00:00:00.000Z",
        issue: { repo: "acme/sec", number: -(2 ** 62), state: "open", url: "u", hash: "h" },
      };
      const { DatabaseSync } = sqlite();
      const db = new DatabaseSync(databasePathOf(path));
      db.prepare("INSERT INTO threats (id, value) VALUES (?, ?)").run("t-odd", JSON.stringify(odd));
      db.close();
      const store = await openStateImporting(path);
      expect(store.get("threats", "t-odd")).toEqual(odd);
      await store.close();
      expect(
        sql(databasePathOf(path), "SELECT status, severity, number, repo FROM threats WHERE id = 't-odd'"),
      ).toEqual([{ status: null, severity: null, number: null, repo: 1 }]);
    }));

  it("a failure in the middle of the upgrade leaves layout 3 whole", () =>
    withFixture(async (path) => {
      const file = databasePathOf(path);
      const before = sql(file, "SELECT * FROM threats ORDER BY n");
      const { DatabaseSync } = sqlite();
      const db = new DatabaseSync(file);
      // A table in the way makes the copy of the rows fail after the old table was renamed and the
      // new one made: as a full disk would at any statement.
      db.exec(`CREATE TABLE repos (x)`);
      db.close();
      await expect(openStateImporting(path)).rejects.toThrow();
      expect(sql(file, "PRAGMA user_version")).toEqual([{ user_version: 3 }]);
      expect(sql(file, "SELECT * FROM threats ORDER BY n")).toEqual(before);
      expect(sql(file, "SELECT name FROM sqlite_schema WHERE name IN ('old_threats', 'asset_ids')")).toEqual(
        [],
      );
    }));
});
