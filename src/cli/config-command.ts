import { ConfigError, configJsonSchema, type ConfigProblem } from "../config/index.js";
import { CONFIG_SCHEMA, CONFIG_VALIDATE } from "./command-specs.js";
import { parseCommand } from "./usage.js";
import { configFromArgs, type Io } from "./io.js";

/**
 * `config validate`: the config is read and checked, no network, no secret needed (exit 0, or 2
 * through main with every problem of the file). A secret it cannot resolve is a warning, on
 * stderr, also beside errors: it stops only the commands that use it.
 */
export async function configValidate(args: string[], io: Io): Promise<number> {
  const opts = parseCommand(CONFIG_VALIDATE, args);
  const warn = (path: string, w: ConfigProblem): void =>
    io.err(
      `${w.line === null ? path : `${path}:${w.line}`}: ${w.path === "" ? "" : `${w.path}: `}warning: ${w.message}`,
    );
  const loaded = await configFromArgs(opts.config, io.env, { unresolvedSecrets: "warn" }).catch(
    (err: unknown) => {
      if (err instanceof ConfigError) for (const w of err.warnings) warn(err.file, w);
      throw err;
    },
  );
  const { path, warnings } = loaded;
  for (const w of warnings) warn(path, w);
  io.out(
    warnings.length === 0
      ? `${path}: valid`
      : `${path}: valid, with ${warnings.length} warning${warnings.length === 1 ? "" : "s"}`,
  );
  return 0;
}

/** `config schema`: the config's JSON Schema on stdout. */
export function configSchema(args: string[], io: Io): Promise<number> {
  parseCommand(CONFIG_SCHEMA, args);
  io.out(JSON.stringify(configJsonSchema(), null, 2));
  return Promise.resolve(0);
}
