import type { Low } from "lowdb";
import { dirname } from "node:path";
import { StateError } from "./errors.js";
import type { JournaledStore, JournaledStoreOptions, StoreStats } from "./journaled-store-api.js";
import { encodeLine, type Change, type Json } from "./journal-line.js";
import { journalPath } from "./journal-recovery.js";
import type { SnapshotAdapter } from "./snapshot-adapter.js";
import { emptyView, type StoreView } from "./snapshot-codec.js";
import type { StoreFile, StoreFs } from "./store-fs.js";
import { copyRows, newRows, THREATS, type Rows } from "./rows.js";
import { ThreatTable } from "./threat-table.js";

const EMPTY = new Map<string, Json>();

/**
 * The journaled store's engine (API and semantics: journaled-store-api.ts, README-store.md):
 * committed maps in memory, a buffer of changed keys with their committed values (so that a
 * compaction's copy can leave them out), and one chain of appends in commit order.
 */
export class Store implements JournaledStore {
  /** Per collection, per buffered key: its committed value before the buffer (undefined: absent). */
  private pending = new Map<string, Map<string, Json | undefined>>();
  private pendingMeta = new Map<string, Json | undefined>();
  private tail: Promise<void> = Promise.resolve();
  private failure: StateError | null = null;
  private closed = false;
  private file: { gen: number; handle: StoreFile; fresh: boolean } | null = null;
  private compaction: Promise<void> | null = null;
  private compactions = 0;
  private lastCompactionError: string | null = null;
  private readonly minJournalBytes: number;
  private readonly ratio: number;
  private readonly firstSnapshot: boolean;

  constructor(
    readonly path: string,
    private readonly fs: StoreFs,
    private readonly db: Low<StoreView>,
    private readonly adapter: SnapshotAdapter,
    private readonly cols: Map<string, Rows>,
    private readonly meta: Map<string, Json>,
    private seq: number,
    private gen: number,
    /** The oldest journal generation that may still exist on disk. */
    private firstGen: number,
    private journalBytes: number,
    private readonly opts: JournaledStoreOptions,
  ) {
    this.minJournalBytes = opts.compaction?.minJournalBytes ?? 4 * 1024 * 1024;
    this.ratio = opts.compaction?.ratio ?? 0.5;
    this.firstSnapshot = opts.compaction?.first === true;
  }

  get(collection: string, key: string): Json | undefined {
    return this.cols.get(collection)?.get(key);
  }

  entries(collection: string): IterableIterator<[string, Json]> {
    return (this.cols.get(collection) ?? EMPTY).entries();
  }

  looseEntries(collection: string): IterableIterator<[string, Json]> {
    const rows = this.cols.get(collection) ?? EMPTY;
    return rows instanceof ThreatTable ? rows.looseEntries() : rows.entries();
  }

  threatTable(): ThreatTable | undefined {
    const rows = this.cols.get(THREATS);
    return rows instanceof ThreatTable ? rows : undefined;
  }

  keys(collection: string): IterableIterator<string> {
    return (this.cols.get(collection) ?? EMPTY).keys();
  }

  size(collection: string): number {
    return this.cols.get(collection)?.size ?? 0;
  }

  set(collection: string, key: string, value: Json): void {
    let rows = this.cols.get(collection);
    if (rows === undefined) {
      rows = newRows(collection);
      this.cols.set(collection, rows);
    }
    this.remember(collection, key, rows);
    rows.set(key, value);
  }

  delete(collection: string, key: string): void {
    const rows = this.cols.get(collection);
    if (rows === undefined || !rows.has(key)) return;
    this.remember(collection, key, rows);
    rows.delete(key);
    // A key set and deleted again since the last commit is no change: nothing to journal (a
    // stream's threats that turn out to need nothing are stored and forgotten within a page).
    const keys = this.pending.get(collection);
    if (keys !== undefined && keys.get(key) === undefined) {
      keys.delete(key);
      if (keys.size === 0) this.pending.delete(collection);
    }
  }

  getMeta(key: string): Json | undefined {
    return this.meta.get(key);
  }

  setMeta(key: string, value: Json): void {
    if (!this.pendingMeta.has(key)) this.pendingMeta.set(key, this.meta.get(key));
    this.meta.set(key, value);
  }

  private remember(collection: string, key: string, rows: Rows): void {
    let keys = this.pending.get(collection);
    if (keys === undefined) {
      keys = new Map();
      this.pending.set(collection, keys);
    }
    if (!keys.has(key)) keys.set(key, rows.get(key));
  }

  commit(): Promise<void> {
    if (this.failure !== null) return Promise.reject(this.failure);
    if (this.opts.readOnly === true) return Promise.reject(this.readOnlyError());
    if (this.closed)
      return Promise.reject(new StateError("state_write_failed", `state store ${this.path} is closed`));
    if (this.pending.size === 0 && this.pendingMeta.size === 0) return this.tail;
    const changes: Change[] = [];
    for (const [collection, keys] of this.pending) {
      const rows = this.cols.get(collection);
      for (const key of keys.keys()) {
        const value = rows?.get(key);
        changes.push(value === undefined ? ["d", collection, key] : ["s", collection, key, value]);
      }
    }
    const meta: Record<string, Json> = {};
    for (const key of this.pendingMeta.keys()) meta[key] = this.meta.get(key) ?? null;
    this.pending = new Map();
    this.pendingMeta = new Map();
    this.seq += 1;
    const line = encodeLine({ s: this.seq, c: changes, m: meta });
    const gen = this.gen;
    this.journalBytes += Buffer.byteLength(line, "utf8");
    // Appends run one at a time, in commit order; after a failed one none runs (no gap).
    const run = this.tail.then(() => this.append(gen, line));
    this.tail = run.catch((err: unknown) => {
      throw this.fail(err);
    });
    this.tail.catch(() => undefined);
    if (
      this.compaction === null &&
      ((this.firstSnapshot && this.adapter.bytes === 0) ||
        this.journalBytes > Math.max(this.minJournalBytes, this.ratio * this.adapter.bytes))
    )
      this.startCompaction().catch(() => undefined);
    return this.tail;
  }

  private async append(gen: number, line: string): Promise<void> {
    if (this.file?.gen !== gen) {
      await this.file?.handle.close();
      this.file = null;
      this.file = { gen, handle: await this.fs.open(journalPath(this.path, gen), "append"), fresh: true };
    }
    await this.file.handle.write(line);
    await this.file.handle.sync();
    // A journal file made by this append exists after a crash only once its directory is synced.
    if (this.file.fresh) {
      await this.fs.syncDir(dirname(this.path));
      this.file.fresh = false;
    }
  }

  private fail(err: unknown): StateError {
    if (this.failure === null) {
      const detail = err instanceof Error ? err.message : String(err);
      this.failure =
        err instanceof StateError
          ? err
          : new StateError(
              "state_write_failed",
              `cannot append to the journal of ${this.path} (${detail}); check free space and permissions of its directory, then restart`,
              { cause: err, file: this.path },
            );
    }
    return this.failure;
  }

  private readOnlyError(): StateError {
    return new StateError("state_write_failed", `state store ${this.path} was opened read-only`, {
      file: this.path,
    });
  }

  compact(): Promise<void> {
    if (this.failure !== null) return Promise.reject(this.failure);
    if (this.opts.readOnly === true) return Promise.reject(this.readOnlyError());
    if (this.closed)
      return Promise.reject(new StateError("state_write_failed", `state store ${this.path} is closed`));
    return (this.compaction ?? Promise.resolve()).then(
      () => this.startCompaction(),
      () => this.startCompaction(),
    );
  }

  /**
   * Rotates to a new journal generation and, in the background, writes the snapshot of the
   * rotation point, then deletes the older generations. The only synchronous work is the shallow
   * copy of the maps (values are immutable); buffered, uncommitted changes are taken out of the copy.
   */
  private startCompaction(): Promise<void> {
    if (this.compaction !== null) return this.compaction;
    const collections = new Map<string, Rows>();
    for (const [name, rows] of this.cols) collections.set(name, copyRows(rows));
    for (const [name, keys] of this.pending) {
      const rows = collections.get(name);
      for (const [key, before] of keys) {
        if (before === undefined) rows?.delete(key);
        else rows?.set(key, before);
      }
    }
    const meta = new Map(this.meta);
    for (const [key, before] of this.pendingMeta) {
      if (before === undefined) meta.delete(key);
      else meta.set(key, before);
    }
    const oldGen = this.gen;
    this.gen += 1;
    this.journalBytes = 0;
    const view: StoreView = { gen: this.gen, seq: this.seq, meta, collections };
    const appended = this.tail;
    this.opts.onCompaction?.("start");
    const run = this.runCompaction(view, appended, oldGen);
    this.compaction = run.then(
      () => {
        this.compaction = null;
      },
      (err: unknown) => {
        this.compaction = null;
        this.lastCompactionError = err instanceof Error ? err.message : String(err);
        this.opts.logger?.warn(
          { path: this.path, err: this.lastCompactionError },
          "state compaction failed; will retry",
        );
        throw err;
      },
    );
    this.compaction.catch(() => undefined);
    return this.compaction;
  }

  private async runCompaction(view: StoreView, appended: Promise<void>, oldGen: number): Promise<void> {
    // The snapshot includes every commit of the old generation: they must be durable first.
    await appended;
    const started = performance.now();
    this.db.data = view;
    try {
      await this.db.write();
    } finally {
      this.db.data = emptyView();
    }
    this.opts.onCompaction?.("snapshot-written");
    // The old generations are inside the snapshot now; a crash before their deletion is
    // harmless: the next open deletes journals older than the snapshot without replaying them.
    for (let gen = this.firstGen; gen <= oldGen; gen++) await this.fs.remove(journalPath(this.path, gen));
    this.firstGen = view.gen;
    this.compactions += 1;
    this.lastCompactionError = null;
    this.opts.logger?.debug(
      {
        path: this.path,
        gen: view.gen,
        bytes: this.adapter.bytes,
        ms: Math.round(performance.now() - started),
      },
      "state compacted",
    );
    this.opts.onCompaction?.("done");
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.tail.catch(() => undefined);
    await this.compaction?.catch(() => undefined);
    await this.file?.handle.close();
    this.file = null;
  }

  stats(): StoreStats {
    return {
      seq: this.seq,
      gen: this.gen,
      journalBytes: this.journalBytes,
      snapshotBytes: this.adapter.bytes,
      compactions: this.compactions,
      lastCompactionError: this.lastCompactionError,
    };
  }
}
