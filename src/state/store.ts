import { Low, type Adapter } from "lowdb";
import type { Logger } from "../observability/index.js";
import { writeFileAtomic } from "./atomic-write.js";
import { StateError } from "./errors.js";
import { emptyState, type State } from "./schema.js";
import { readStateFile } from "./state-file.js";

/** The connector's state, held in memory and saved atomically on `write()`. */
interface StateStore {
  readonly path: string;
  /** Mutable in memory; nothing reaches the disk before `write()`. */
  data: State;
  /**
   * Saves `data` as it is when the write starts. Writes run one at a time; a call made while
   * another write is in flight waits for it, then saves the latest data (calls made while one
   * is already waiting share that one).
   */
  write(): Promise<void>;
}

interface StateStoreOptions {
  logger?: Logger;
}

/** lowdb adapter over the atomic, durable file write; reads go through migrations and the schema. */
class AtomicJsonAdapter implements Adapter<State> {
  constructor(
    private readonly path: string,
    private readonly logger: Logger | undefined,
  ) {}

  read(): Promise<State | null> {
    return readStateFile(this.path);
  }

  async write(data: State): Promise<void> {
    const started = performance.now();
    // One compact stringify: indentation would roughly double the size and the time of large states.
    const text = JSON.stringify(data);
    try {
      await writeFileAtomic(this.path, text);
    } catch (err) {
      const detail = err instanceof Error ? err.message : String(err);
      throw new StateError(
        "state_write_failed",
        `cannot write state file ${this.path} (${detail}); check free space and permissions of its directory`,
        { cause: err, file: this.path },
      );
    }
    this.logger?.debug(
      { path: this.path, bytes: text.length, ms: Math.round(performance.now() - started) },
      "state written",
    );
  }
}

class FileStateStore implements StateStore {
  /** The last write in the chain, settled either way, so that one failure does not block the next. */
  private tail: Promise<void> = Promise.resolve();
  /** A write that is chained but has not started yet: later callers share it. */
  private waiting: Promise<void> | null = null;

  constructor(
    readonly path: string,
    private readonly db: Low<State>,
  ) {}

  get data(): State {
    return this.db.data;
  }

  set data(value: State) {
    this.db.data = value;
  }

  write(): Promise<void> {
    if (this.waiting !== null) return this.waiting;
    const run = this.tail.then(() => {
      // From here on, a new write() call must start another write: this one may already have
      // serialized the data.
      this.waiting = null;
      return this.db.write();
    });
    this.waiting = run;
    this.tail = run.catch(() => undefined);
    return run;
  }
}

/**
 * Opens the state file at `path`: an absent file gives `emptyState()` (the file is created by the
 * first `write()`); an unreadable, corrupt or too-new file throws a StateError and is left as it is.
 * The caller holds the lock (acquireLock) before opening a store it will write.
 */
export async function openStateStore(path: string, opts: StateStoreOptions = {}): Promise<StateStore> {
  const db = new Low<State>(new AtomicJsonAdapter(path, opts.logger), emptyState());
  await db.read();
  return new FileStateStore(path, db);
}
