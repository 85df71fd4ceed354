import type { Logger } from "../observability/index.js";
import { openJournaledStore, type JournaledStore, type JournaledStoreOptions } from "../state/index.js";
import { persistTo, stateFromStore } from "../sync/records/journaled-state.js";
import { sliceTaggers } from "../sync/features/registry.js";
import type { EngineState } from "../sync/records/threat-records.js";
import type { StateCommit } from "../sync/records/state-changes.js";

/**
 * Opens the engine's state in the journaled store: a version-1 file is
 * converted on the first open (src/state/README-store.md, "Migration"). Read-only for `status`
 * and dry-run: no lock, nothing written, every file left byte-for-byte as it was.
 */
export interface OpenedState {
  state: EngineState;
  /** Whether anything was stored before (a fresh path holds nothing). */
  stored: boolean;
  /** One durable commit of exactly what changed. */
  persist: (commit: StateCommit) => Promise<void>;
  close(): Promise<void>;
}

export interface OpenEngineStateOptions {
  logger?: Logger;
  readOnly?: boolean;
  env?: Record<string, string | undefined>;
}

/**
 * Test knobs from the environment: THREATBRIDGE_COMPACT_BYTES compacts once the journal holds
 * that many bytes, whatever the snapshot's size (the SIGKILL test kills mid-compaction);
 * THREATBRIDGE_FREEZE_STATE=1 makes any in-place mutation of the state throw.
 */
function compactionFromEnv(
  env: Record<string, string | undefined>,
): NonNullable<JournaledStoreOptions["compaction"]> {
  const bytes = Number(env["THREATBRIDGE_COMPACT_BYTES"] ?? "");
  // A new state gets its snapshot with its first commit: `state.path` exists after the first cycle.
  return Number.isInteger(bytes) && bytes > 0
    ? { minJournalBytes: bytes, ratio: 0, first: true }
    : { first: true };
}

export function freezeFromEnv(env: Record<string, string | undefined>): boolean {
  return env["THREATBRIDGE_FREEZE_STATE"] === "1";
}

export async function openEngineState(path: string, opts: OpenEngineStateOptions = {}): Promise<OpenedState> {
  const compaction = compactionFromEnv(opts.env ?? {});
  const store: JournaledStore = await openJournaledStore(path, {
    ...(opts.logger ? { logger: opts.logger } : {}),
    ...(opts.readOnly ? { readOnly: true } : {}),
    compaction,
    // Each feature's summary of its slices, kept beside them by every snapshot this process writes.
    sliceTaggers: sliceTaggers(),
  });
  const stats = store.stats();
  return {
    state: stateFromStore(store),
    stored: stats.seq > 0 || stats.snapshotBytes > 0,
    persist: persistTo(store),
    close: () => store.close(),
  };
}
