import { configJsonSchema } from "../config/index.js";
import { CONFIG_SCHEMA, CONFIG_VALIDATE } from "./command-specs.js";
import { parseCommand } from "./usage.js";
import { configFromArgs, type Io } from "./io.js";

/** `config validate`: the config is read and checked, no network (exit 0, or 2 through main). */
export async function configValidate(args: string[], io: Io): Promise<number> {
  const opts = parseCommand(CONFIG_VALIDATE, args);
  const { path } = await configFromArgs(opts.config, io.env);
  io.out(`${path}: valid`);
  return 0;
}

/** `config schema`: the config's JSON Schema on stdout. */
export function configSchema(args: string[], io: Io): Promise<number> {
  parseCommand(CONFIG_SCHEMA, args);
  io.out(JSON.stringify(configJsonSchema(), null, 2));
  return Promise.resolve(0);
}
