import type { Clock } from "../shared/clock.js";
import { loadConfig, resolveConfigPath, type LoadedConfig, type LoadOptions } from "../config/index.js";

/** What a command talks to: its output streams and the environment (parameters, for tests). */
export interface Env {
  [name: string]: string | undefined;
}

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  env: Env;
  /**
   * The engine's clock, for a caller in the same process (tests that let days pass without waiting
   * for them: SLA due dates, acceptances that expire). A process always runs on the system clock.
   */
  clock?: Clock;
  /**
   * Where `sync` writes its log records, for a caller in the same process (a test that reads the
   * audit log beside a moved clock). A process always logs to stderr.
   */
  log?: (record: string) => void;
}

/** `-c FILE`, else `$THREATBRIDGE_CONFIG`, else `config/threatbridge.yaml` (contract). */
export async function configFromArgs(
  configPath: string | undefined,
  env: Env,
  opts: LoadOptions = {},
): Promise<LoadedConfig> {
  return loadConfig(resolveConfigPath(configPath, env), env, opts);
}
