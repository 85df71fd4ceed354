import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStateStore, type Json } from "../../src/state/index.js";
import { sqlite } from "../../src/state/sqlite.js";
import { withTempDir } from "./helpers.js";

/**
 * Features own their data: a record's `slices` (feature → its text) are stored in the
 * `feature_data` table, one row per (feature, subject), never inside the threat's or group's row,
 * and every read joins them back (src/state/database.ts).
 */

/** The database's rows as SQLite holds them, read after the store is closed. */
function rawRows(dbPath: string): {
  threats: Record<string, Json>;
  groups: Record<string, Json>;
  featureData: { feature: string; subject: string; value: string }[];
} {
  const { DatabaseSync } = sqlite();
  const db = new DatabaseSync(dbPath, { readOnly: true });
  try {
    const table = (name: string): Record<string, Json> =>
      Object.fromEntries(
        db
          .prepare(`SELECT id, value FROM ${name}`)
          .all()
          .map((r) => [String(r["id"]), JSON.parse(String(r["value"])) as Json]),
      );
    const featureData = db
      .prepare(
        `SELECT k.name AS feature, s.id AS subject, f.value FROM feature_data AS f
           JOIN features AS k ON k.n = f.feature
           JOIN (SELECT n, id FROM threats UNION ALL SELECT -n, id FROM groups) AS s ON s.n = f.subject
           ORDER BY feature, subject`,
      )
      .all()
      .map((r) => ({
        feature: String(r["feature"]),
        subject: String(r["subject"]),
        value: String(r["value"]),
      }));
    return { threats: table("threats"), groups: table("groups"), featureData };
  } finally {
    db.close();
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
};

describe("feature data lives in feature_data, keyed by (feature, subject)", () => {
  it("a threat's slices round-trip through the database with that data only in feature_data", async () => {
    const { dir, cleanup } = await withTempDir();
    try {
      const path = join(dir, "state.json");
      const store = await openStateStore(path);
      const slices = { sla: '{"due":"2026-02-01T00:00:00.000Z"}', notes: "text 'quoted'" };
      store.set("threats", "t1", { ...THREAT, slices });
      store.set("threats", "t2", THREAT);
      store.set("groups", "group:asset:a1", { members: {}, slices: { project: "item" } });
      await store.commit();
      // Read on the same connection and after a reopen: one value, slices joined.
      expect(store.get("threats", "t1")).toEqual({ ...THREAT, slices });
      expect(store.get("threats", "t2")).toEqual(THREAT);
      await store.close();
      const raw = rawRows(join(dir, "state.db"));
      // The rest of the record is in columns of their own (tables.ts FIELDS): its JSON is empty.
      expect(raw.threats["t1"]).toEqual({});
      expect(raw.groups["group:asset:a1"]).toEqual({ members: {} });
      expect(raw.featureData).toEqual([
        { feature: "notes", subject: "t1", value: "text 'quoted'" },
        { feature: "project", subject: "group:asset:a1", value: "item" },
        { feature: "sla", subject: "t1", value: '{"due":"2026-02-01T00:00:00.000Z"}' },
      ]);
      const again = await openStateStore(path);
      expect(again.get("threats", "t1")).toEqual({ ...THREAT, slices });
      expect(Object.fromEntries(again.entries("threats"))).toEqual({ t1: { ...THREAT, slices }, t2: THREAT });
      const seen: [string, string][] = [];
      again.threatQueries?.scanSlices("sla", (id, slice) => seen.push([id, slice]));
      expect(seen).toEqual([["t1", slices.sla]]);
      await again.close();
    } finally {
      await cleanup();
    }
  });

  it("a slice removed, a record deleted: their feature_data rows go with them", async () => {
    const { dir, cleanup } = await withTempDir();
    try {
      const path = join(dir, "state.json");
      const store = await openStateStore(path);
      store.set("threats", "t1", { ...THREAT, slices: { sla: "a", notes: "b" } });
      store.set("threats", "t2", { ...THREAT, slices: { sla: "c" } });
      await store.commit();
      store.set("threats", "t1", { ...THREAT, slices: { notes: "b2" } });
      store.delete("threats", "t2");
      await store.commit();
      expect(store.get("threats", "t1")).toEqual({ ...THREAT, slices: { notes: "b2" } });
      await store.close();
      expect(rawRows(join(dir, "state.db")).featureData).toEqual([
        { feature: "notes", subject: "t1", value: "b2" },
      ]);
    } finally {
      await cleanup();
    }
  });

  it("a threat and a group whose rows have the same number keep their slices apart (the group's subject is negated)", async () => {
    const { dir, cleanup } = await withTempDir();
    try {
      const path = join(dir, "state.json");
      const store = await openStateStore(path);
      // The first row of each table: both are `n` 1.
      store.set("threats", "t1", { ...THREAT, slices: { project: "threat's item" } });
      store.set("groups", "group:asset:a1", { members: {}, slices: { project: "group's item" } });
      await store.commit();
      expect(store.get("threats", "t1")).toEqual({ ...THREAT, slices: { project: "threat's item" } });
      store.delete("groups", "group:asset:a1");
      await store.commit();
      expect(store.get("threats", "t1")).toEqual({ ...THREAT, slices: { project: "threat's item" } });
      await store.close();
      expect(rawRows(join(dir, "state.db")).featureData).toEqual([
        { feature: "project", subject: "t1", value: "threat's item" },
      ]);
    } finally {
      await cleanup();
    }
  });

  it("read-only (a dry-run), a change to a record's slices is seen by reads and written nowhere", async () => {
    const { dir, cleanup } = await withTempDir();
    try {
      const path = join(dir, "state.json");
      const store = await openStateStore(path);
      store.set("threats", "t1", { ...THREAT, slices: { sla: "a" } });
      await store.commit();
      await store.close();
      const reader = await openStateStore(path, { readOnly: true });
      reader.set("threats", "t1", { ...THREAT, slices: { sla: "b" } });
      expect(reader.get("threats", "t1")).toEqual({ ...THREAT, slices: { sla: "b" } });
      await reader.close();
      expect(rawRows(join(dir, "state.db")).featureData).toEqual([
        { feature: "sla", subject: "t1", value: "a" },
      ]);
    } finally {
      await cleanup();
    }
  });
});
