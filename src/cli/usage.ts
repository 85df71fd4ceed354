import { parseArgs, type ParseArgsConfig } from "node:util";

/** A wrong command line: exit 2 with the usage text. */
export class UsageError extends Error {
  readonly code = "usage";
}

export const USAGE = `usage: threatbridge <command> [options]

commands:
  run        [-c FILE]                                       the daemon: a cycle now, then one per schedule
  sync       [-c FILE] [--dry-run] [--json] [--max-duration S] exactly one cycle, then exit
  status     [-c FILE] [--json]                              what the state file holds
  config validate [-c FILE]                                  validate the config, no network
  config schema                                              print the config's JSON Schema
  reconcile  [-c FILE] [--dry-run] [--recreate]              rebuild the threat-issue mapping
  simulate   [--host H] [--port N] [--seed N] [--assets N] [--threats N] [--client-id ID]
             [--client-secret S] [--read-only-client-id ID] [--read-only-client-secret S] [--token-ttl S]
  demo                                                       simulator + GitHub stand-in + connector, narrated

-c defaults to $THREATBRIDGE_CONFIG, then config/threatbridge.yaml.
exit codes: 0 ok, 1 failed, 2 config or usage error.`;

type Options = NonNullable<ParseArgsConfig["options"]>;

export function parse<T extends Options>(
  args: string[],
  options: T,
): ReturnType<
  typeof parseArgs<{ args: string[]; options: T; strict: true; allowPositionals: false }>
>["values"] {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

export function intOption(
  value: string | undefined,
  name: string,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} takes a whole number, got "${value}"`);
  const n = Number(value);
  if (n < min || n > max) throw new UsageError(`--${name} must be between ${min} and ${max}`);
  return n;
}

export const CONFIG_OPTION = { config: { type: "string", short: "c" } } as const;
