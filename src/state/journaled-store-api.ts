import type { Logger } from "../observability/index.js";
import type { Json } from "./journal-line.js";
import type { StoreFs } from "./store-fs.js";
import type { ThreatTable } from "./threat-table.js";
import type { SliceTaggers } from "./slice-tags.js";

/**
 * The connector's state as keyed collections plus a `meta` record, with a cost per durable write
 * that does not depend on the state's size. See src/state/README-store.md.
 *
 * Changes are buffered in memory (reads see them at once); `commit()` appends them as one
 * fsynced journal line. Values are immutable plain JSON: replace a value, never mutate it in
 * place, so that a compaction can snapshot a consistent view with a shallow copy of the maps.
 */
export interface JournaledStore {
  readonly path: string;
  get(collection: string, key: string): Json | undefined;
  entries(collection: string): IterableIterator<[string, Json]>;
  keys(collection: string): IterableIterator<string>;
  /**
   * The rows a reader must check itself: all of a plain collection; of the threats' column table,
   * only those outside its packed shape (which is a valid threat record by construction).
   */
  looseEntries(collection: string): IterableIterator<[string, Json]>;
  /** The `threats` column table, for counting over it (read-only: changes go through set/delete). */
  threatTable(): ThreatTable | undefined;
  size(collection: string): number;
  set(collection: string, key: string, value: Json): void;
  delete(collection: string, key: string): void;
  getMeta(key: string): Json | undefined;
  setMeta(key: string, value: Json): void;
  /**
   * Appends every buffered change as one journal line and fsyncs it: when it resolves the
   * changes are durable. With nothing buffered it writes nothing and resolves once earlier
   * commits are durable. After a failed append the store refuses further commits
   * (`state_write_failed`): reopen it, which recovers the last durable commit.
   */
  commit(): Promise<void>;
  /** Starts a compaction now (if none runs) and resolves when it is done. */
  compact(): Promise<void>;
  /** Waits for commits and any compaction, then closes the journal. */
  close(): Promise<void>;
  stats(): StoreStats;
}

export interface StoreStats {
  seq: number;
  gen: number;
  journalBytes: number;
  snapshotBytes: number;
  compactions: number;
  lastCompactionError: string | null;
}

type CompactionPhase = "start" | "snapshot-written" | "done";

export interface JournaledStoreOptions {
  fs?: StoreFs;
  logger?: Logger;
  /**
   * A compaction starts once the journal holds more than max(minJournalBytes, ratio × snapshot);
   * with `first`, also after the first commit of a store that has no snapshot yet, so that the
   * snapshot's file exists from then on (the engine's stores: operators look for `state.path`).
   */
  compaction?: { minJournalBytes?: number; ratio?: number; first?: boolean };
  /** Yields to the event loop between chunks of a snapshot's serialization (setImmediate). */
  pause?: () => Promise<void>;
  /** Told of each compaction's progress (logs; tests kill processes at these points). */
  onCompaction?: (phase: CompactionPhase) => void;
  /**
   * Reads without the lock and without writing anything (for `status` beside a running daemon):
   * no torn tail is cut, nothing is converted or deleted on disk, and commit() is refused.
   */
  readOnly?: boolean;
  /**
   * The features' slice taggers (slice-tags.ts): a snapshot keeps each one's tags beside its slice
   * column, so that counting them later needs no inflate. Without one, a column's slices are read.
   */
  sliceTaggers?: SliceTaggers;
}
