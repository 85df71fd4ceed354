import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import type { Logger } from "../observability/index.js";
import { StateError } from "./errors.js";
import { openDatabase, type Json } from "./database.js";
import { removeLegacyJournals } from "../state-import/index.js";
import { openSavedCursors, type SavedCursors } from "./saved-cursors.js";
import { ThreatQueries } from "./threat-queries.js";

/**
 * The connector's state (src/state/README-store.md): keyed collections of rows in SQLite
 * (`<state>.db`, beside `state.path`) and the saved cursors in a JSON document at `state.path`.
 *
 * Changes are made at once inside an open transaction of the database (reads see them); `commit()`
 * ends that transaction (WAL, synchronous=FULL: durable when it returns), then writes the document
 * if a cursor changed. A crash before the commit returns loses the transaction, never part of it;
 * a crash between the two re-reads pages from the older cursors (delivery is at-least-once).
 */
export type StateStore = Store;

/**
 * The meta values kept in the document at `state.path` (what `rewind` edits): written after the
 * rows they cover. Every other meta value (the queue's sequence, the render key, the features'
 * own values…) is a row of the database's `meta` table, committed with the rows it goes with.
 */
export const CURSOR_KEYS: ReadonlySet<string> = new Set([
  "cursors",
  "cursorRefused",
  "githubSince",
  "etags",
  "lastCycle",
  "platformNotBefore",
]);

/** `data/state.json` → `data/state.db`: the database sits next to the document. */
export function databasePathOf(path: string): string {
  return `${path.replace(/\.json$/, "")}.db`;
}

/**
 * Opens the state at `path`; the caller holds the lock (acquireLock) unless it reads only. `readOnly`
 * (for `status` and dry-runs beside a running daemon) opens the database read-only and imports a
 * state not imported yet in memory only: it writes nothing.
 */
export async function openStateStore(
  path: string,
  opts: { logger?: Logger; readOnly?: boolean } = {},
): Promise<StateStore> {
  const dbPath = databasePathOf(path);
  const readOnly = opts.readOnly === true;
  if (!readOnly) await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const existed = existsSync(dbPath);
  const { db, imported } = await openDatabase(path, dbPath, {
    readOnly,
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
  // Cursors without the rows they cover (the database was deleted) would skip what those rows
  // held: the streams start again from the beginning instead.
  const cursors = await openSavedCursors(path, readOnly, { ignore: !existed && !imported });
  // The cursors an import brought, when the document was not written yet (a crash in between).
  if (cursors.fresh) for (const key of CURSOR_KEYS) cursors.seed(key, db.getMeta(key));
  if (imported && !readOnly) {
    await cursors.write(cursors.take());
    // From here on the document holds them (the database's copies were the import's, for a crash before).
    for (const key of CURSOR_KEYS) db.rows("meta").delete(key);
    db.commit();
    await removeLegacyJournals(path);
  }
  return new Store(path, dbPath, existed || imported, db, cursors);
}

class Store {
  private failed: unknown = null;
  private tail: Promise<void> = Promise.resolve();
  private closed = false;
  private queries: ThreatQueries | undefined;

  constructor(
    /** The saved cursors' document (`state.path`). */
    readonly path: string,
    /** The database beside it. */
    readonly dbPath: string,
    /** Whether anything was stored before this open. */
    readonly stored: boolean,
    private readonly db: Awaited<ReturnType<typeof openDatabase>>["db"],
    private readonly cursors: SavedCursors,
  ) {}

  /**
   * The questions the engine asks of every stored threat, in SQL over the rows' JSON; undefined
   * while a read-only store holds changes to them in memory (a dry-run), which SQL would not see.
   */
  get threatQueries(): ThreatQueries | undefined {
    const rows = this.db.rows("threats");
    return rows.changedInMemory ? undefined : (this.queries ??= new ThreatQueries(rows));
  }

  get(collection: string, key: string): Json | undefined {
    return this.db.rows(collection).get(key);
  }

  entries(collection: string): IterableIterator<[string, Json]> {
    return this.db.rows(collection).entries();
  }

  keys(collection: string): IterableIterator<string> {
    return this.db.rows(collection).keys();
  }

  size(collection: string): number {
    return this.db.rows(collection).size;
  }

  set(collection: string, key: string, value: Json): void {
    this.db.rows(collection).set(key, value);
  }

  delete(collection: string, key: string): void {
    this.db.rows(collection).delete(key);
  }

  getMeta(key: string): Json | undefined {
    return CURSOR_KEYS.has(key) ? this.cursors.get(key) : this.db.getMeta(key);
  }

  setMeta(key: string, value: Json): void {
    if (CURSOR_KEYS.has(key)) this.cursors.set(key, value);
    else this.db.setMeta(key, value);
  }

  /**
   * Makes every change since the last commit durable (one transaction), then the document. With
   * nothing changed it writes nothing, and resolves once earlier commits are done. After a failed
   * commit the store refuses every later one (`state_write_failed`): the process should exit;
   * reopening finds the last durable commit.
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
    if (this.cursors.dirty) {
      const values = this.cursors.take();
      this.tail = this.tail.then(() => this.cursors.write(values));
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
  return new StateError(
    "state_write_failed",
    `could not write the state at ${path}: ${cause instanceof Error ? cause.message : String(cause)}; ` +
      "the last committed state is intact: fix the cause (disk full? permissions?) and start again",
    { cause, file: path },
  );
}
