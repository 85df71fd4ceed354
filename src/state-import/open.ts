import { existsSync } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import type { Logger } from "../observability/index.js";
import { syncDirectory } from "../state/atomic-write.js";
import { openDatabase, type Db, type Json } from "../state/database.js";
import { databasePathOf, openStateStore, type StateStore } from "../state/store.js";
import { importLegacyState, removeLegacyJournals, type ImportTarget } from "./legacy-import.js";
import { journalsOf } from "./journal.js";
import { legacyThreatRow } from "./legacy-rows.js";

/**
 * Opens the state at `path` (openStateStore), first importing the store before SQLite's files
 * there when it has no database yet. Opened to write, the import is made into the database's file
 * (importIntoDatabase); read-only (`status`, dry-run), into a database in memory: nothing is written.
 */
export async function openStateImporting(
  path: string,
  opts: { logger?: Logger; readOnly?: boolean } = {},
): Promise<StateStore> {
  const readOnly = opts.readOnly === true;
  if (existsSync(databasePathOf(path))) return openStateStore(path, { readOnly });
  if (!readOnly) {
    await importIntoDatabase(path, opts.logger);
    return openStateStore(path);
  }
  const database = openDatabase(":memory:", false);
  let imported: boolean;
  try {
    imported = await importLegacyState(path, importTarget(database), { readOnly: true });
    database.commit();
  } catch (err) {
    database.close();
    throw err;
  }
  if (imported) return openStateStore(path, { readOnly: true, database });
  database.close();
  return openStateStore(path, { readOnly: true });
}

/**
 * Imports the old store at `path`, if there is one and no database yet, into `<db>.import`, renamed
 * into place once whole (a crash leaves no half database: the next open imports again); the
 * originals are kept as `.bak` and the journals deleted. Its cursors are in the database's meta
 * until openStateStore moves them into the document over the snapshot. Whether it imported.
 */
export async function importIntoDatabase(path: string, logger?: Logger): Promise<boolean> {
  const dbPath = databasePathOf(path);
  if (existsSync(dbPath) || (!existsSync(path) && (await journalsOf(path)).length === 0)) return false;
  const draft = `${dbPath}.import`;
  const removeDraft = async (): Promise<void> => {
    for (const suffix of ["", "-wal", "-shm"]) await rm(`${draft}${suffix}`, { force: true });
  };
  await removeDraft();
  const db = openDatabase(draft, false);
  let imported: boolean;
  try {
    imported = await importLegacyState(path, importTarget(db), { readOnly: false });
    db.commit();
  } catch (err) {
    // Refused or failed: nothing is left behind, the old files are as they were.
    db.close();
    await removeDraft();
    throw err;
  }
  db.close();
  if (!imported) {
    await removeDraft();
    return false;
  }
  await rename(draft, dbPath);
  await syncDirectory(dirname(dbPath));
  await removeLegacyJournals(path);
  logger?.info(
    { path, database: dbPath },
    "state imported into the database; the original files are kept as .bak",
  );
  return true;
}

/** The database as the import writes into it: its threat rows given today's shape (legacy-rows.ts). */
function importTarget(db: Db): ImportTarget {
  return {
    rows: (collection) => {
      const rows = db.rows(collection);
      if (collection !== "threats") return { set: (key, value) => rows.set(key, value as Json) };
      return { set: (key, value) => rows.set(key, legacyThreatRow(value as Json)) };
    },
    setMeta: (key, value) => db.setMeta(key, value as Json),
    begin: () => db.begin(),
  };
}
