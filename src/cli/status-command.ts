import { inspectLock, StateError } from "../state/index.js";
import { emptyState } from "../sync/schema.js";
import { ZodError } from "zod";
import { openEngineState, type OpenedState } from "./state-open.js";
import { featureCounts, featureLines, featureListings, formatStatus, summarize } from "../sync/status.js";
import { featuresFor } from "../sync/features/registry.js";
import { engineState, type EngineState } from "../sync/records/threat-records.js";
import { STATUS } from "./command-specs.js";
import { parseCommand } from "./usage.js";
import { configFromArgs, type Io } from "./io.js";
import { DATA_MAPS, snakeKeys } from "../shared/index.js";

/**
 * `status`: what the state holds; reads the state and lock files only (no lock taken, no network)
 * and needs no secret in the environment (contract): secrets whose variables are unset or empty
 * are left unresolved, as status uses none. Exit 0 always once the config is read (contract): a damaged
 * state file is a finding to print, not a failure.
 */
export async function statusCommand(args: string[], io: Io, now: () => number = Date.now): Promise<number> {
  const opts = parseCommand(STATUS, args);
  const { config } = await configFromArgs(opts.config, io.env, { unresolvedSecrets: "placeholder" });
  let state: EngineState | null;
  let problem: string | undefined;
  let opened: OpenedState | undefined;
  try {
    // Read-only: no lock, nothing written, beside a running daemon (src/state/README-store.md).
    // The threats are read from the database as they are counted: it stays open until then.
    // Its assets are never used here: not read (a damaged asset is `sync`'s finding, not status's).
    opened = await openEngineState(config.state.path, { readOnly: true, lazyAssets: true });
    state = opened.stored ? opened.state : null;
  } catch (err) {
    if (!(err instanceof StateError || err instanceof ZodError)) throw err;
    state = null;
    problem = err instanceof ZodError ? `the state does not match its schema: ${err.message}` : err.message;
  }
  // A caller in the same process may pass the engine's clock (tests that let days pass).
  const nowMs = io.clock ? io.clock.now() : now();
  const b = config.github.write_budget;
  const features = featuresFor(config);
  let held = state ?? engineState(emptyState());
  let counted: ReturnType<typeof featureCounts>;
  let listed: ReturnType<typeof featureListings>;
  let summary: ReturnType<typeof summarize>;
  const lock = await inspectLock(config.state.path);
  const budget = { perMinute: b.per_minute, perHour: b.per_hour, minIntervalMs: b.min_interval_ms };
  try {
    counted = featureCounts(features, held, nowMs);
    listed = featureListings(features, held);
    summary = summarize({ state: held, nowMs, budget, lock });
  } catch (err) {
    // A stored row is read here for the first time: one that does not match its schema is the
    // damaged state's finding, as at open.
    if (!(err instanceof StateError || err instanceof ZodError)) throw err;
    state = null;
    problem = err instanceof ZodError ? `the state does not match its schema: ${err.message}` : err.message;
    held = engineState(emptyState());
    counted = featureCounts(features, held, nowMs);
    listed = featureListings(features, held);
    summary = summarize({ state: held, nowMs, budget, lock });
  } finally {
    await opened?.close();
  }
  const report = {
    statePath: config.state.path,
    stateFile: state !== null,
    ...(problem !== undefined ? { stateProblem: problem } : {}),
    ...summary,
    ...Object.fromEntries(Object.values(listed).map((listing) => [listing.key, listing.items])),
    ...counted,
  };
  if (opts.json === true) io.out(JSON.stringify(snakeKeys(report, DATA_MAPS)));
  else if (problem !== undefined)
    io.out(`state:      ${config.state.path} (unreadable)\nproblem:    ${problem}`);
  else
    io.out(
      `state:      ${config.state.path}${state ? "" : " (absent: no cycle has run)"}\n${formatStatus(report, nowMs, featureLines(features, counted, listed))}`,
    );
  return 0;
}
