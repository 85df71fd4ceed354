import { describe, expect, it } from "vitest";
import { databasePathOf, openStateStore, StateError, type Json } from "../../src/state/index.js";
import { SCHEMA_VERSION } from "../../src/state/tables.js";
import { sqlite } from "../../src/state/sqlite.js";
import { openStateImporting } from "../../src/state-import/index.js";
import { stateFromStore } from "../../src/sync/index.js";
import { ThreatIndex } from "../../src/sync/records/threat-index.js";
import { withTempDir } from "./helpers.js";

/**
 * A feature's times are index seeks (src/state/tables.ts): the rows of a feature that declares where
 * its slice keeps a time carry it as columns (`due`, `done`, and `open`: the threat counts as open),
 * written with the slice and whenever the threat opens or closes; the engine's lookups are asked of
 * the database; a database of the first layout is upgraded in place, and read-only it is refused.
 */

const SLA_AT = { due: "due", unless: "breach" };

const threat = (due: string, state: "open" | "closed", extra: Record<string, Json> = {}): Json => ({
  status: "unsolved",
  severity: 3,
  assetId: "a1",
  updatedAt: "2026-01-01T00:00:00.000Z",
  issue: { repo: "acme/sec", number: 7, url: "https://github.com/acme/sec/issues/7", state, hash: "h" },
  slices: { sla: JSON.stringify({ since: "2026-01-01T00:00:00.000Z", due }), notes: "n" },
  ...extra,
});

const column = (dbPath: string, sql: string): unknown[] => {
  const { DatabaseSync } = sqlite();
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
};

describe("a feature's time columns in feature_data", () => {
  it("the earliest due of an open threat follows its issue's closing and reopening, and the breach step (unless), without reading a slice", async () => {
    const { dir, cleanup } = await withTempDir();
    try {
      const path = `${dir}/state.json`;
      const store = await openStateStore(path);
      store.set("threats", "t1", threat("2026-03-01T00:00:00.000Z", "open"));
      store.set("threats", "t2", threat("2026-02-01T00:00:00.000Z", "open"));
      await store.commit();
      const threats = stateFromStore(store).threats;
      // Declared at first use: the rows written before it get their columns.
      expect(threats.earliestTime("sla", SLA_AT)).toBe(Date.parse("2026-02-01T00:00:00.000Z"));
      store.set("threats", "t2", threat("2026-02-01T00:00:00.000Z", "closed"));
      expect(threats.earliestTime("sla", SLA_AT)).toBe(Date.parse("2026-03-01T00:00:00.000Z"));
      store.set("threats", "t2", threat("2026-02-01T00:00:00.000Z", "open", { gone: true }));
      expect(threats.earliestTime("sla", SLA_AT)).toBe(Date.parse("2026-03-01T00:00:00.000Z"));
      store.set("threats", "t2", threat("2026-02-01T00:00:00.000Z", "open"));
      expect(threats.earliestTime("sla", SLA_AT)).toBe(Date.parse("2026-02-01T00:00:00.000Z"));
      const breached = JSON.stringify({ since: "x", due: "2026-02-01T00:00:00.000Z", breach: "added" });
      store.set("threats", "t2", { ...(threat("", "open") as object), slices: { sla: breached } });
      expect(threats.earliestTime("sla", SLA_AT)).toBe(Date.parse("2026-03-01T00:00:00.000Z"));
      // status counts the breached one still (an open issue past its due), by index ranges.
      const now = Date.parse("2026-02-15T00:00:00.000Z");
      expect(threats.countTimes("sla", SLA_AT, [now, now + 30 * 86_400_000])).toEqual([1, 2]);
      store.delete("threats", "t1");
      expect(threats.earliestTime("sla", SLA_AT)).toBe(Number.POSITIVE_INFINITY);
      await store.commit();
      await store.close();
      // Committed: the columns are in the file, beside the slice's text.
      expect(
        column(
          databasePathOf(path),
          `SELECT t.id AS subject, f.open, f.due, f.done FROM feature_data AS f JOIN threats AS t ON t.n = f.subject
             WHERE f.feature = (SELECT n FROM features WHERE name = 'sla')`,
        ),
      ).toEqual([{ subject: "t2", open: 1, due: Date.parse("2026-02-01T00:00:00.000Z"), done: 1 }]);
    } finally {
      await cleanup();
    }
  });

  it("over a writable store the engine's index holds no threat: lookups by issue and asset and the repositories are asked of the database as rows change", async () => {
    const { dir, cleanup } = await withTempDir();
    try {
      const store = await openStateStore(`${dir}/state.json`);
      store.set("threats", "t1", threat("2026-03-01T00:00:00.000Z", "open"));
      const threats = stateFromStore(store).threats;
      const index = ThreatIndex.build(threats);
      expect(index.byIssue.get("acme/sec#7")).toBe("t1");
      expect([...(index.byAsset.get("a1") ?? [])]).toEqual(["t1"]);
      expect(index.repositories()).toEqual(["acme/sec"]);
      // Written through the store alone (no update of the index): the lookups see it.
      store.set("threats", "t2", {
        ...(threat("2026-03-01T00:00:00.000Z", "open") as object),
        assetId: "a2",
        issue: { repo: "Acme/Ops", number: 3, url: "u", state: "open", hash: "h" },
      });
      expect(index.byIssue.get("acme/ops#3")).toBe("t2");
      expect(index.byAsset.get("a2")?.has("t2")).toBe(true);
      expect(index.repositories().sort()).toEqual(["Acme/Ops", "acme/sec"]);
      store.delete("threats", "t1");
      expect(index.byIssue.has("acme/sec#7")).toBe(false);
      expect(index.byAsset.has("a1")).toBe(false);
      expect(index.repositories()).toEqual(["Acme/Ops"]);
      await store.commit();
      await store.close();
    } finally {
      await cleanup();
    }
  });
});

describe("the database's layout version 1 (no time columns, feature_data indexed by subject)", () => {
  /** A database as the first layout wrote it: one threat with an SLA slice. */
  function writeVersion1(dbPath: string): void {
    const { DatabaseSync } = sqlite();
    const db = new DatabaseSync(dbPath);
    db.exec(`
      CREATE TABLE threats (id TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
      CREATE TABLE meta (id TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
      CREATE TABLE feature_data (feature TEXT NOT NULL, subject TEXT NOT NULL, value TEXT NOT NULL,
        PRIMARY KEY (feature, subject)) WITHOUT ROWID;
      CREATE INDEX feature_data_by_subject ON feature_data (subject);
      CREATE INDEX threats_by_issue ON threats (lower(value ->> '$.issue.repo'), value ->> '$.issue.number')
        WHERE value ->> '$.issue.number' IS NOT NULL;
      PRAGMA user_version = 1;`);
    const { slices, ...row } = threat("2026-03-01T00:00:00.000Z", "open") as Record<string, Json>;
    db.prepare("INSERT INTO threats (id, value) VALUES (?, ?)").run("t1", JSON.stringify(row));
    for (const [feature, text] of Object.entries(slices as Record<string, string>))
      db.prepare("INSERT INTO feature_data (feature, subject, value) VALUES (?, ?, ?)").run(
        feature,
        "t1",
        text,
      );
    db.close();
  }

  it("read-only (status) it is refused with state_too_old, telling the operator to run sync once; nothing is changed", async () => {
    const { dir, cleanup } = await withTempDir();
    try {
      const path = `${dir}/state.json`;
      writeVersion1(databasePathOf(path));
      const error = await openStateStore(path, { readOnly: true }).then(
        () => null,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(StateError);
      expect((error as StateError).code).toBe("state_too_old");
      expect((error as StateError).message).toContain("run `threatbridge sync` once");
      expect(column(databasePathOf(path), "PRAGMA user_version")).toEqual([{ user_version: 1 }]);
    } finally {
      await cleanup();
    }
  });

  it("opened to write (src/state-import/layouts.ts), it is upgraded in place (one transaction) and its rows read as before, slices and times too", async () => {
    const { dir, cleanup } = await withTempDir();
    try {
      const path = `${dir}/state.json`;
      writeVersion1(databasePathOf(path));
      const store = await openStateImporting(path);
      expect(store.get("threats", "t1")).toEqual(threat("2026-03-01T00:00:00.000Z", "open"));
      const threats = stateFromStore(store).threats;
      expect(threats.earliestTime("sla", SLA_AT)).toBe(Date.parse("2026-03-01T00:00:00.000Z"));
      expect(ThreatIndex.build(threats).byIssue.get("acme/sec#7")).toBe("t1");
      await store.close();
      expect(column(databasePathOf(path), "PRAGMA user_version")).toEqual([{ user_version: SCHEMA_VERSION }]);
      const indexes = column(databasePathOf(path), "SELECT name FROM sqlite_schema WHERE type = 'index'");
      expect(indexes).not.toContainEqual({ name: "feature_data_by_subject" });
      expect(indexes).toContainEqual({ name: "feature_data_due" });
    } finally {
      await cleanup();
    }
  });
});
