import type { Config } from "../config/index.js";
import type { Logger, SecretRegistry } from "../observability/index.js";
import type { PlatformClient } from "../platform/index.js";
import { systemClock, type Clock } from "../shared/clock.js";
import { acquireLock, type Lock } from "../state/index.js";
import { createContext, setMeta, type DryRunSink, type SyncContext } from "../sync/index.js";
import { freezeFromEnv, openEngineState, type OpenedState } from "./state-open.js";
import { buildConnector, type Connector } from "./wiring.js";

/**
 * The one way `sync`, `sync --dry-run`, `reconcile`, `run` and `demo` assemble the engine: the
 * state lock, the state database, the platform client and the GitHub gateway, and the engine's
 * context over them. What differs between the commands is an option, so that a change to how the
 * engine starts (or stops) is made once and every command gets it.
 */

export interface OpenEngineOptions {
  logger: Logger;
  /** The environment's test knobs for the state (a frozen state). */
  env?: Record<string, string | undefined>;
  /**
   * Credentials to scrub from the error texts the state keeps; the platform client learns the
   * tokens it is issued into the same registry. Absent: errors are kept as they are (the demo).
   */
  secrets?: SecretRegistry;
  /**
   * Dry run: no lock, the state opened read-only (every file stays byte-for-byte as it was), and
   * planned writes go to the sink instead of GitHub or the platform.
   */
  dryRun?: DryRunSink;
  /**
   * Stopping (SIGTERM/SIGINT, a lost lock) abandons the platform request in flight, ends both
   * sides' waits and bounds GitHub's request in flight (github/stop.ts).
   */
  stop?: AbortSignal;
  /**
   * Another process took the lock's lease over (this one stalled past it): the caller stops
   * writing at once. Not called in a dry run, which holds no lock.
   */
  onLockLost?: () => void;
  /** Wraps the platform client the engine reads through (dry run: to keep the threats it read). */
  platform?: (client: PlatformClient) => PlatformClient;
  clock?: Clock;
  /** The longest Retry-After the platform client waits out inside a request (`run`: a short one). */
  maxRetryAfterMs?: number;
}

export interface OpenedEngine {
  ctx: SyncContext;
  connector: Connector;
  /**
   * Releases everything in the reverse of the order it was taken: the clients (the platform's
   * pooled sockets), the state's files, then the lock, so that no other process gets the lock
   * while this one can still write.
   */
  close(): Promise<void>;
}

/** Runs the closers in the reverse order they were pushed, each even when an earlier one failed. */
async function closeAll(closers: Array<() => Promise<void>>): Promise<void> {
  let first: unknown = null;
  for (const close of closers.reverse()) {
    try {
      await close();
    } catch (error) {
      first ??= error;
    }
  }
  if (first !== null) throw first;
}

export async function openEngine(config: Config, opts: OpenEngineOptions): Promise<OpenedEngine> {
  const { logger } = opts;
  const dryRun = opts.dryRun !== undefined;
  const closers: Array<() => Promise<void>> = [];
  let lock: Lock | null = null;
  try {
    if (!dryRun) {
      const held = await acquireLock(config.state.path, {
        onLost: () => opts.onLockLost?.(),
      });
      lock = held;
      closers.push(() => held.release());
    }
    const opened: OpenedState = await openEngineState(config.state.path, {
      ...(dryRun ? { readOnly: true } : { logger }),
      env: opts.env ?? {},
    });
    closers.push(() => opened.close());
    let engine: SyncContext | null = null;
    const notBefore = opened.state.platformNotBefore;
    const connector = buildConnector(config, logger, {
      ...(opts.clock !== undefined ? { clock: opts.clock } : {}),
      ...(opts.secrets !== undefined ? { secrets: opts.secrets } : {}),
      ...(opts.stop !== undefined ? { stop: opts.stop } : {}),
      ...(opts.maxRetryAfterMs !== undefined ? { maxRetryAfterMs: opts.maxRetryAfterMs } : {}),
      // The platform's Retry-After is honoured on start; a dry run's state is a copy, so a new
      // one is never written there.
      ...(notBefore !== undefined ? { notBefore } : {}),
      ...(dryRun
        ? {}
        : {
            // Committed with the state's next write (the cycle writes it even when it fails).
            onNotBefore: (at: number) => {
              if (engine) setMeta(engine, "platformNotBefore", at);
            },
          }),
    });
    closers.push(() => connector.close());
    const secrets = opts.secrets;
    const ctx = createContext(
      {
        config,
        ...connector,
        ...(opts.platform ? { platform: opts.platform(connector.platform) } : {}),
        logger,
        clock: opts.clock ?? systemClock,
        // A process that stalled past its lease (its renewals did not run) learns whether it still
        // holds the lock before it writes the state again, not at the next renewal tick.
        persist:
          dryRun || lock === null
            ? null
            : async (commit) => {
                await lock?.confirm();
                await opened.persist(commit);
              },
        ...(opts.dryRun ? { dryRun: opts.dryRun } : {}),
        freezeState: freezeFromEnv(opts.env ?? {}),
        ...(secrets !== undefined && !dryRun ? { scrub: (text: string) => secrets.scrub(text) } : {}),
      },
      opened.state,
    );
    engine = ctx;
    return { ctx, connector, close: () => closeAll(closers) };
  } catch (error) {
    await closeAll(closers).catch(() => undefined);
    throw error;
  }
}
