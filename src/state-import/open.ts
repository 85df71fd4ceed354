import { existsSync } from "node:fs";
import type { Logger } from "../observability/index.js";
import { openDatabase, type Db, type Json } from "../state/database.js";
import { createDatabase, databasePathOf, openStateStore, type StateStore } from "../state/store.js";
import { importLegacyState, removeLegacyJournals, type ImportTarget } from "./legacy-import.js";
import { journalsOf } from "./journal.js";
import { upgradeLayout } from "./layouts.js";
import { legacyIntentRow, legacyThreatRow } from "./legacy-rows.js";

/**
 * Opens the state at `path` (openStateStore), first importing the store before SQLite's files
 * there when it has no database yet, or upgrading an older layout of its database (layouts.ts). Opened to write, the import is made into the database's file
 * (importIntoDatabase); read-only (`status`, dry-run), into a database in memory: nothing is written.
 */
export async function openStateImporting(
  path: string,
  opts: { logger?: Logger; readOnly?: boolean } = {},
): Promise<StateStore> {
  const readOnly = opts.readOnly === true;
  if (existsSync(databasePathOf(path))) {
    if (!readOnly) upgradeLayout(databasePathOf(path));
    return openStateStore(path, { readOnly });
  }
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
 * Imports the old store at `path`, if there is one and no database yet, into a new database made
 * whole (createDatabase: a crash leaves none, and the next open imports again); the originals are
 * kept as `.bak` and the journals deleted. Its cursors are in the database's meta until
 * openStateStore moves them into the document over the snapshot. Whether it imported.
 */
export async function importIntoDatabase(path: string, logger?: Logger): Promise<boolean> {
  const dbPath = databasePathOf(path);
  if (existsSync(dbPath) || (!existsSync(path) && (await journalsOf(path)).length === 0)) return false;
  const fill = (db: Db): Promise<boolean> => importLegacyState(path, importTarget(db), { readOnly: false });
  if (!(await createDatabase(dbPath, fill))) return false;
  await removeLegacyJournals(path);
  logger?.info(
    { path, database: dbPath },
    "state imported into the database; the original files are kept as .bak",
  );
  return true;
}

/** The database as the import writes into it: its threat and intent rows given today's shape (legacy-rows.ts). */
function importTarget(db: Db): ImportTarget {
  const shapes: Record<string, (value: Json) => Json> = {
    threats: legacyThreatRow,
    intents: legacyIntentRow,
  };
  return {
    rows: (collection) => {
      const rows = db.rows(collection);
      const shape = shapes[collection] ?? ((value: Json) => value);
      return { set: (key, value) => rows.set(key, shape(value as Json)) };
    },
    setMeta: (key, value) => db.setMeta(key, value as Json),
    begin: () => db.begin(),
  };
}
