import { copyFile, open, readFile, rm } from "node:fs/promises";
import { StateError, errnoCode } from "../state/errors.js";
import { journalsOf, replayJournals } from "./journal.js";
import { legacyIntentRow } from "./legacy-rows.js";
import {
  decodeSnapshot,
  STORE_FORMAT,
  THREATS_CODEC_OF_VERSION,
  tooOld,
  type StoreView,
} from "./snapshot.js";

export { legacyThreatRow } from "./legacy-rows.js";

/**
 * The one-time import of a state written before the SQLite store: the snapshot at `state.path`
 * (snapshot.ts) and its journals `<path>.journal.<gen>` (journal.ts). Everything in this folder
 * serves it alone, and goes once no such state is left to import. The snapshot versions read are
 * those the release before this one writes (3 and 6 with codec `threat-4`, 7 with `threat-8`);
 * older formats (a version-1 state file, store versions 2, 4 and 5, version 6 with codec
 * `threat-7`) are refused with `state_too_old`: that release reads them and writes one of those.
 */

/** The text of the file at `path` (null: no such file). */
async function textOf(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    if (errnoCode(err) === "ENOENT") return null;
    throw new StateError(
      "state_unreadable",
      `cannot read state file ${path} (${String(err)}); check its permissions`,
      {
        cause: err,
        file: path,
      },
    );
  }
}

/** Whether `text` begins the old store's snapshot, and of which version (null: another document). */
function snapshotVersion(text: string): number | null {
  const match = /^\{\s*"format"\s*:\s*"([^"]*)"\s*,\s*"version"\s*:\s*(\d+)/.exec(text);
  if (match === null) return /^\{\s*"format"\s*:/.test(text) ? null : 1;
  return match[1] === STORE_FORMAT ? Number(match[2]) : null;
}

/** What the import writes into: the new database's rows and meta (state/database.ts `Db`). */
export interface ImportTarget {
  rows(collection: string): { set(key: string, value: unknown): void };
  setMeta(key: string, value: unknown): void;
  begin(): void;
}

/**
 * Imports the old store at `path` into `db` (its open transaction; the caller commits), and
 * unless `readOnly` copies its files to `<name>.bak` first. False when there is none to import.
 */
export async function importLegacyState(
  path: string,
  db: ImportTarget,
  opts: { readOnly: boolean },
): Promise<boolean> {
  const journals = await journalsOf(path);
  const text = await textOf(path);
  const version = text === null ? null : snapshotVersion(text.trimStart());
  if (text !== null && version === null) return false;
  if (text === null && journals.length === 0) return false;
  if (version !== null && version < 7 && !THREATS_CODEC_OF_VERSION.has(version))
    throw tooOld(path, version === 1 ? "a version-1 state file" : `store version ${version}`);
  const view: StoreView =
    text === null ? { gen: 0, seq: 0, meta: new Map(), collections: new Map() } : decodeSnapshot(text, path);
  await replayJournals(path, view);
  for (const [collection, rows] of view.collections)
    for (const [key, value] of rows.entries())
      db.rows(collection).set(key, collection === "intents" ? legacyIntentRow(value) : value);
  for (const [key, value] of view.meta) db.setMeta(key, value);
  db.begin();
  if (!opts.readOnly) {
    const files = [...(text === null ? [] : [path]), ...journals.map(({ file }) => file)];
    for (const file of files) {
      await copyFile(file, `${file}.bak`);
      const copy = await open(`${file}.bak`, "r+");
      await copy.sync().finally(() => copy.close());
    }
  }
  return true;
}

/** Deletes the old store's journals once the import is in place (their copies are kept as `.bak`). */
export async function removeLegacyJournals(path: string): Promise<void> {
  for (const { file } of await journalsOf(path)) await rm(file, { force: true });
}
