import { isRecord } from "../shared/json.js";
import { StateError } from "./errors.js";
import { STATE_VERSION } from "./schema.js";

/** Turns a state object of version N into version N + 1. */
export type Migration = (state: Record<string, unknown>) => Record<string, unknown>;

/**
 * Migrations keyed by the version they upgrade from. Empty while version 1 is the only one: when
 * the schema changes, bump STATE_VERSION and add `[1, (s) => ({ ...s, version: 2, … })]`.
 */
const MIGRATIONS: ReadonlyMap<number, Migration> = new Map();

interface MigrationSet {
  current: number;
  migrations: ReadonlyMap<number, Migration>;
}

/**
 * Brings a freshly parsed state file up to `set.current`, one version at a time. The result is
 * still unvalidated: the caller parses it with the `State` schema.
 */
export function applyMigrations(raw: unknown, set: MigrationSet, source = "state file"): unknown {
  if (!isRecord(raw)) {
    throw new StateError("state_corrupt", `${source} does not hold a JSON object`);
  }
  const version = raw["version"];
  if (typeof version !== "number" || !Number.isInteger(version) || version < 1) {
    throw new StateError(
      "state_corrupt",
      `${source} has no valid "version" (found ${JSON.stringify(version)})`,
    );
  }
  if (version > set.current) {
    throw new StateError(
      "state_too_new",
      `${source} was written by a newer threatbridge (state version ${version}; this one knows up to ${set.current}): upgrade threatbridge to use it`,
    );
  }
  let state = raw;
  for (let v = version; v < set.current; v++) {
    const step = set.migrations.get(v);
    if (step === undefined) {
      throw new StateError(
        "state_corrupt",
        `${source} has state version ${v}, which this threatbridge cannot migrate`,
      );
    }
    state = step(state);
  }
  return state;
}

/** Migrates a parsed state file to this program's STATE_VERSION (see applyMigrations). */
export function migrate(raw: unknown, source?: string): unknown {
  return applyMigrations(raw, { current: STATE_VERSION, migrations: MIGRATIONS }, source);
}
