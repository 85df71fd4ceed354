import { configJsonSchema } from "../config/index.js";
import { CONFIG_OPTION, parse, UsageError } from "./usage.js";
import { configFromArgs, type Io } from "./io.js";

/** `config validate` (no network) and `config schema`. */
export async function configCommand(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "schema") {
    parse(rest, {});
    io.out(JSON.stringify(configJsonSchema(), null, 2));
    return 0;
  }
  if (sub === "validate") {
    const opts = parse(rest, CONFIG_OPTION);
    const { path } = await configFromArgs(opts.config, io.env);
    io.out(`${path}: valid`);
    return 0;
  }
  throw new UsageError(
    `config takes "validate" or "schema", got ${sub === undefined ? "nothing" : `"${sub}"`}`,
  );
}
