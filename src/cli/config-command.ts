import { configJsonSchema } from "../config/index.js";
import { CONFIG_SCHEMA, CONFIG_VALIDATE } from "./command-specs.js";
import { parseCommand } from "./usage.js";
import { configFromArgs, type Io } from "./io.js";

/**
 * `config validate`: the config is read and checked, no network, no secret needed (exit 0, or 2
 * through main with every problem of the file). A secret it cannot resolve is a warning, on
 * stderr: it stops only the commands that use it.
 */
export async function configValidate(args: string[], io: Io): Promise<number> {
  const opts = parseCommand(CONFIG_VALIDATE, args);
  const { path, warnings } = await configFromArgs(opts.config, io.env, { unresolvedSecrets: "warn" });
  for (const w of warnings)
    io.err(
      `${w.line === null ? path : `${path}:${w.line}`}: ${w.path === "" ? "" : `${w.path}: `}warning: ${w.message}`,
    );
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
