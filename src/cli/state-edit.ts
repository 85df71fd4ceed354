import type { Config } from "../config/index.js";
import { acquireLock } from "../state/index.js";
import type { EngineState } from "../sync/index.js";
import type { Io } from "./io.js";
import { freezeFromEnv, openEngineState, type OpenedState } from "./state-open.js";
import { cliLogger } from "./wiring.js";

type StateCommit = Parameters<OpenedState["persist"]>[0];

/**
 * A command that changes the state file alone (`retry`, `rewind`): it plans from the state, and
 * applies the plan under the state lock, as `sync` takes it. Such a command needs no secret.
 */
export interface StateEdit<P> {
  plan(state: EngineState): P;
  /** The change to commit, or null when there is nothing to change. */
  apply(state: EngineState, plan: P, freeze: boolean): StateCommit | null;
  /** Prints what was (or with `dryRun`, would be) done; answers the exit code. */
  report(plan: P, dryRun: boolean): number;
  /** What did not happen when another process took the lock over ("nothing was re-queued"). */
  undone: string;
}

export async function editState<P>(
  config: Config,
  io: Io,
  dryRun: boolean,
  edit: StateEdit<P>,
): Promise<number> {
  const statePath = config.state.path;
  if (dryRun) {
    // No lock and nothing written: the state's files stay byte-for-byte as they were (contract).
    const opened = await openEngineState(statePath, { readOnly: true, env: io.env });
    try {
      return edit.report(edit.plan(opened.state), true);
    } finally {
      await opened.close();
    }
  }
  const logger = cliLogger(config, io.env);
  let lockLost = false;
  const lock = await acquireLock(statePath, {
    onLost: () => {
      lockLost = true;
    },
  });
  try {
    const opened = await openEngineState(statePath, { logger, env: io.env });
    try {
      const plan = edit.plan(opened.state);
      const commit = edit.apply(opened.state, plan, freezeFromEnv(io.env));
      // Another host took the lease over (this process stalled past it): its state wins.
      if (lockLost) {
        io.err(`threatbridge: another process took the state lock over; ${edit.undone}`);
        return 1;
      }
      if (commit !== null) await opened.persist(commit);
      return edit.report(plan, false);
    } finally {
      await opened.close();
    }
  } finally {
    await lock.release();
  }
}
