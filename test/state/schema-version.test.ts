import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as NodeSqlite from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { databasePathOf, openStateStore, StateError } from "../../src/state/index.js";
import { SCHEMA_VERSION } from "../../src/state/tables.js";

/**
 * The database records the layout of its tables (SQLite's `user_version`): a threatbridge rolled
 * back after an upgrade refuses a database a newer one wrote, read-only (`status`) as well, and
 * changes nothing in it.
 */

const { DatabaseSync } = createRequire(import.meta.url)("node:sqlite") as typeof NodeSqlite;

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

function userVersion(file: string): number {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
  } finally {
    db.close();
  }
}

describe("the state database's layout version", () => {
  it("a new database records the layout it was written with", async () => {
    dir = await mkdtemp(join(tmpdir(), "tb-schema-version-"));
    const path = join(dir, "state.json");
    const store = await openStateStore(path);
    store.set("queue", "t1", { action: "create" });
    await store.commit();
    await store.close();
    expect(userVersion(databasePathOf(path))).toBe(SCHEMA_VERSION);
  });

  it("a database a newer threatbridge wrote is refused with state_too_new, naming both versions, and left as it was", async () => {
    dir = await mkdtemp(join(tmpdir(), "tb-schema-version-"));
    const path = join(dir, "state.json");
    const file = databasePathOf(path);
    const newer = new DatabaseSync(file);
    newer.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    newer.close();
    for (const readOnly of [false, true]) {
      const error = await openStateStore(path, { readOnly }).then(
        () => null,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(StateError);
      expect((error as StateError).code).toBe("state_too_new");
      expect((error as StateError).message).toContain(
        `was written by a newer threatbridge (state version ${SCHEMA_VERSION + 1}; this one knows up to ${SCHEMA_VERSION}): upgrade threatbridge to use it`,
      );
    }
    expect(userVersion(file)).toBe(SCHEMA_VERSION + 1);
  });
});
