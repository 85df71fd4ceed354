import { Low } from "lowdb";
import { dirname, join } from "node:path";
import { StateError } from "./errors.js";
import { recoverJournals } from "./journal-recovery.js";
import type { JournaledStore, JournaledStoreOptions } from "./journaled-store-api.js";
import { Store } from "./journaled-store.js";
import { SnapshotAdapter, isTempOf, writeAtomic } from "./snapshot-adapter.js";
import { emptyView, type StoreView } from "./snapshot-codec.js";
import { nodeStoreFs, type StoreFs } from "./store-fs.js";

/** A read-only open retries this many times when a compaction moved the files under it. */
const READ_ATTEMPTS = 3;

/**
 * Opens (recovers) the journaled store whose snapshot is `path`: snapshot + replay of every
 * journal generation from the snapshot's on, in order; a torn last line is cut off (its commit
 * never resolved). A version-1 state file at `path` is converted: a copy is kept at
 * `<path>.v1.bak`, then the snapshot replaces it. The caller holds the lock (acquireLock).
 */
export async function openJournaledStore(
  path: string,
  opts: JournaledStoreOptions = {},
): Promise<JournaledStore> {
  const fs = opts.fs ?? nodeStoreFs;
  if (opts.readOnly !== true) return openForWriting(path, fs, opts);
  for (let attempt = 1; ; attempt++) {
    try {
      return await openForReading(path, fs, opts);
    } catch (err) {
      // A compaction of the running writer may have replaced the snapshot and deleted the
      // journal this reader was about to read (a gap): read again from the new snapshot.
      if (!(err instanceof StateError) || err.code !== "state_corrupt" || attempt >= READ_ATTEMPTS) throw err;
    }
  }
}

async function load(path: string, fs: StoreFs, opts: JournaledStoreOptions) {
  const pause = opts.pause ?? (() => new Promise<void>((resolve) => setImmediate(resolve)));
  const adapter = new SnapshotAdapter(path, fs, pause, opts.sliceTaggers);
  const db = new Low<StoreView>(adapter, emptyView());
  await db.read();
  const view = db.data;
  db.data = emptyView();
  return { adapter, db, view };
}

async function openForReading(
  path: string,
  fs: StoreFs,
  opts: JournaledStoreOptions,
): Promise<JournaledStore> {
  const { adapter, db, view } = await load(path, fs, opts);
  if (adapter.legacyText !== null) view.gen = 1;
  const recovered = await recoverJournals(fs, path, view, { readOnly: true });
  return storeOf(path, fs, opts, { adapter, db, view }, recovered);
}

async function openForWriting(
  path: string,
  fs: StoreFs,
  opts: JournaledStoreOptions,
): Promise<JournaledStore> {
  const { adapter, db, view } = await load(path, fs, opts);
  const dir = dirname(path);
  await fs.ensureDir(dir);
  for (const name of await fs.list(dir)) if (isTempOf(path, name)) await fs.remove(join(dir, name));
  if (adapter.legacyText !== null) {
    await writeAtomic(fs, `${path}.v1.bak`, [adapter.legacyText]);
    view.gen = 1;
    db.data = view;
    await db.write();
    db.data = emptyView();
    adapter.legacyText = null;
    opts.logger?.info({ path, backup: `${path}.v1.bak` }, "state file converted to the journaled store");
  }
  const recovered = await recoverJournals(fs, path, view, { readOnly: false });
  return storeOf(path, fs, opts, { adapter, db, view }, recovered);
}

/** The open store over what was loaded and the journals recovered after it. */
function storeOf(
  path: string,
  fs: StoreFs,
  opts: JournaledStoreOptions,
  loaded: Awaited<ReturnType<typeof load>>,
  recovered: Awaited<ReturnType<typeof recoverJournals>>,
): JournaledStore {
  const { adapter, db, view } = loaded;
  return new Store(
    path,
    fs,
    db,
    adapter,
    view.collections,
    view.meta,
    view.seq,
    recovered.gen,
    view.gen,
    recovered.bytes,
    opts,
  );
}
