import { existsSync } from "node:fs";
import { mkdir, readFile, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { Low, type Adapter } from "lowdb";
import { isRecord } from "../shared/json.js";
import { syncDirectory, writeFileAtomic } from "./atomic-write.js";
import { openDatabase, type Db, type Json } from "./database.js";
import { errnoCode, StateError } from "./errors.js";
import { ThreatQueries } from "./threat-queries.js";

/**
 * The connector's state: keyed collections of rows in SQLite (`<state>.db`, beside `state.path`)
 * and the saved cursors in a JSON document at `state.path` (src/state/README-store.md: what is
 * written when, and what a crash keeps).
 */
export type StateStore = Store;
type OpenOptions = { readOnly?: boolean; database?: Db };

/**
 * The meta values kept in the document (what `rewind` edits), written after the rows they cover.
 * Every other meta value (the queue's sequence, the render key, the features' own values…) is a
 * row of the database's `meta` table, committed with the rows it goes with.
 */
const CURSOR_KEYS = new Set("cursors cursorRefused githubSince etags lastCycle platformNotBefore".split(" "));

const FORMAT = "threatbridge-cursors";
type CursorDocument = { format: typeof FORMAT; version: 1; values: Record<string, Json> };

/** The document at `state.path` (lowdb), indented for a person to read, written atomically with mode 0600. */
class CursorFile implements Adapter<CursorDocument> {
  constructor(private readonly path: string) {}

  async read(): Promise<CursorDocument | null> {
    const file = this.path;
    const text = await readFile(file, "utf8").catch((err: unknown) => {
      if (errnoCode(err) === "ENOENT") return null;
      throw new StateError("state_unreadable", `cannot read ${file}: ${String(err)}`, { cause: err, file });
    });
    if (text === null) return null;
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (cause) {
      const hint = `restore it from a backup, or move it aside (the next sync then reads the streams again from their start, which duplicates nothing)`;
      throw new StateError("state_corrupt", `${file} is not valid JSON: ${hint}`, { cause, file });
    }
    // Another document here (the previous store's snapshot, until its import replaces it): not ours.
    if (!isRecord(doc) || doc["format"] !== FORMAT || !isRecord(doc["values"])) return null;
    return doc as CursorDocument;
  }

  write(doc: CursorDocument): Promise<void> {
    return writeFileAtomic(this.path, `${JSON.stringify(doc, null, 2)}\n`);
  }
}

/** `data/state.json` → `data/state.db`: the database sits next to the document. */
export function databasePathOf(path: string): string {
  return `${path.replace(/\.json$/, "")}.db`;
}

/**
 * Makes a new database at `file` whole or not at all: its layout and what `fill` writes (one
 * transaction) go into `<file>.new`, renamed into place; nothing is left if `fill` throws or answers false.
 */
export async function createDatabase(file: string, fill: (db: Db) => Promise<boolean>): Promise<boolean> {
  const draft = `${file}.new`;
  const drop = (): Promise<unknown> =>
    Promise.all(["", "-wal", "-shm"].map((end) => rm(`${draft}${end}`, { force: true })));
  await drop();
  const db = openDatabase(draft, false);
  let filled = false;
  try {
    filled = await fill(db);
    db.commit();
  } finally {
    db.close();
    if (!filled) await drop();
  }
  if (filled) await rename(draft, file).then(() => syncDirectory(dirname(file)));
  return filled;
}

/**
 * Opens the state at `path`: its database, or a new empty one. The caller holds the lock
 * (acquireLock) unless it reads only: `readOnly` (for `status` and dry-runs beside a running
 * daemon) opens the database read-only and writes nothing (no database: an empty one in memory);
 * `database` is one to read instead of the file's (an import held in memory).
 */
export async function openStateStore(path: string, opts: OpenOptions = {}): Promise<StateStore> {
  const dbPath = databasePathOf(path);
  const readOnly = opts.readOnly === true;
  if (!readOnly) await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const existed = opts.database !== undefined || existsSync(dbPath);
  if (!existed && !readOnly) await createDatabase(dbPath, () => Promise.resolve(true));
  const db = opts.database ?? openDatabase(existed || !readOnly ? dbPath : ":memory:", readOnly && existed);
  const none: CursorDocument = { format: FORMAT, version: 1, values: {} };
  const doc = new Low<CursorDocument>(new CursorFile(path), none);
  // Cursors without the rows they cover (the database was deleted) would skip what those rows
  // held: the streams start again from the beginning instead.
  if (existed) await doc.read();
  const cursors = { ...doc.data.values };
  // Cursors the database holds while no document does (`doc.data` is still `none`; an import
  // writes them with the rows they cover): the document takes them, then the database's copies go.
  const moved = doc.data !== none ? [] : [...CURSOR_KEYS].filter((key) => db.getMeta(key) !== undefined);
  for (const key of moved) cursors[key] = db.getMeta(key) ?? null;
  const store = new Store(path, existed, db, doc, cursors, readOnly);
  if (moved.length > 0 && !readOnly) {
    await store.writeCursors({ ...cursors });
    for (const key of moved) db.rows("meta").delete(key);
    db.commit();
  }
  return store;
}

class Store {
  private failed: unknown = null;
  private tail: Promise<void> = Promise.resolve();
  private closed = false;
  private queries: ThreatQueries | undefined;
  private cursorsChanged = false;

  constructor(
    /** The saved cursors' document (`state.path`). */
    readonly path: string,
    /** Whether anything was stored before this open. */
    readonly stored: boolean,
    private readonly db: Db,
    private readonly doc: Low<CursorDocument>,
    private readonly cursors: Record<string, Json>,
    private readonly readOnly: boolean,
  ) {}

  /** The engine's questions over every stored threat, in SQL; undefined while a dry-run holds changes SQL misses. */
  get threatQueries(): ThreatQueries | undefined {
    const rows = this.db.rows("threats");
    return rows.changedInMemory ? undefined : (this.queries ??= new ThreatQueries(rows));
  }

  get = (collection: string, key: string): Json | undefined => this.db.rows(collection).get(key);
  entries = (collection: string): IterableIterator<[string, Json]> => this.db.rows(collection).entries();
  keys = (collection: string): IterableIterator<string> => this.db.rows(collection).keys();
  size = (collection: string): number => this.db.rows(collection).size;
  set = (collection: string, key: string, value: Json): void => this.db.rows(collection).set(key, value);
  delete = (collection: string, key: string): void => this.db.rows(collection).delete(key);

  getMeta(key: string): Json | undefined {
    return CURSOR_KEYS.has(key) ? this.cursors[key] : this.db.getMeta(key);
  }

  setMeta(key: string, value: Json): void {
    if (!CURSOR_KEYS.has(key)) return this.db.setMeta(key, value);
    this.cursors[key] = value;
    this.cursorsChanged = true;
  }

  async writeCursors(values: Record<string, Json>): Promise<void> {
    if (this.readOnly)
      throw new StateError("state_write_failed", `${this.path} was opened read-only`, { file: this.path });
    this.doc.data = { format: FORMAT, version: 1, values };
    await this.doc.write();
  }

  /**
   * Makes every change since the last commit durable (one transaction), then the document (a crash
   * between the two re-reads pages from older cursors: at-least-once). Nothing changed: nothing
   * written, resolved once earlier commits are done. After a failed commit the store refuses every
   * later one (`state_write_failed`): the process should exit; reopening finds the last durable one.
   */
  commit(): Promise<void> {
    if (this.failed !== null) return Promise.reject(writeFailed(this.path, this.failed));
    try {
      // Synchronous: the transaction is durable (fsynced WAL) when this returns.
      this.db.commit();
    } catch (err) {
      this.failed = err;
      return Promise.reject(writeFailed(this.path, err));
    }
    // The document after the rows it covers, one write at a time, in commit order: each writes
    // the values as they were at its commit (a cursor set since may cover rows not committed yet).
    if (this.cursorsChanged) {
      this.cursorsChanged = false;
      const values = { ...this.cursors };
      this.tail = this.tail.then(() => this.writeCursors(values));
      this.tail.catch((err: unknown) => (this.failed ??= err));
    }
    return this.tail.catch((err: unknown) => Promise.reject(writeFailed(this.path, err)));
  }

  /** Waits for commits, drops any change not committed, and closes the database. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.tail.catch(() => undefined);
    this.db.close();
  }
}

function writeFailed(path: string, cause: unknown): StateError {
  const why = cause instanceof Error ? cause.message : String(cause);
  const hint = "the last committed state is intact: fix the cause (disk full? permissions?) and start again";
  const message = `could not write the state at ${path}: ${why}; ${hint}`;
  return new StateError("state_write_failed", message, { cause, file: path });
}
