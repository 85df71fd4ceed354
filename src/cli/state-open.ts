import type { Logger } from "../observability/index.js";
import type { StateStore } from "../state/index.js";
import { openStateImporting } from "../state-import/index.js";
import { persistTo, stateFromStore } from "../sync/records/stored-state.js";
import type { EngineState } from "../sync/records/threat-records.js";
import type { StateCommit } from "../sync/records/state-changes.js";

/**
 * Opens the engine's state (src/state/README-store.md): a state of the store before SQLite is
 * imported on the first open. Read-only for `status` and dry-run: no lock, nothing written, every
 * file left byte-for-byte as it was.
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
  /** The assets read when first used (stored-state.ts `StateFromStoreOptions`): `status` uses none. */
  lazyAssets?: boolean;
  env?: Record<string, string | undefined>;
}

/** Test knob from the environment: THREATBRIDGE_FREEZE_STATE=1 makes any in-place mutation of the state throw. */
export function freezeFromEnv(env: Record<string, string | undefined>): boolean {
  return env["THREATBRIDGE_FREEZE_STATE"] === "1";
}

export async function openEngineState(path: string, opts: OpenEngineStateOptions = {}): Promise<OpenedState> {
  const store: StateStore = await openStateImporting(path, {
    ...(opts.logger ? { logger: opts.logger } : {}),
    ...(opts.readOnly ? { readOnly: true } : {}),
  });
  return {
    state: stateFromStore(store, { lazyAssets: opts.lazyAssets === true }),
    stored: store.stored,
    persist: persistTo(store),
    close: () => store.close(),
  };
}
