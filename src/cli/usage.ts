import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { suggest } from "../config/suggest.js";

/**
 * A command declares its options once, with their help; the same declaration is what its parser
 * takes and what its `--help` lists, so the two cannot drift apart.
 */

/** A wrong command line: exit 2 with the usage of the command it was for (main prints it). */
export class UsageError extends Error {
  readonly code = "usage";
}

export type OptionSpec = ParseArgsOptionsConfig[string] & {
  /** The value's placeholder in the usage ("FILE", "S"); absent for a flag. */
  arg?: string;
  help: string;
};

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

export interface CommandSpec<O extends OptionSpecs = OptionSpecs> {
  /** As typed after `threatbridge`: "sync", "config validate". */
  name: string;
  /** One line for the list of commands. */
  summary: string;
  /** What follows the name in the synopsis, where the options alone do not say it (alternatives). */
  synopsis?: string;
  /** What the command does, for its `--help`. */
  description: string;
  options: O;
}

export function defineCommand<const O extends OptionSpecs>(spec: CommandSpec<O>): CommandSpec<O> {
  return spec;
}

export const CONFIG_OPTION = {
  config: {
    type: "string",
    short: "c",
    arg: "FILE",
    help: "the config file (default $THREATBRIDGE_CONFIG, then config/threatbridge.yaml)",
  },
} as const satisfies OptionSpecs;

/** `-h`/`--help` is answered by main before any parser runs; it is listed and suggested like the rest. */
const HELP_OPTION: OptionSpec = { type: "boolean", short: "h", help: "this text" };

function flag(name: string, o: OptionSpec, preferShort: boolean): string {
  const spelled = preferShort && o.short !== undefined ? `-${o.short}` : `--${name}`;
  return `${spelled}${o.arg !== undefined ? ` ${o.arg}` : ""}${o.multiple === true ? " ..." : ""}`;
}

/** "[-c FILE] [--dry-run] [--threat ID ...]": the synopsis the options alone give. */
export function synopsisOf(spec: CommandSpec): string {
  if (spec.synopsis !== undefined) return spec.synopsis;
  return Object.entries(spec.options)
    .map(([name, o]) => `[${flag(name, o, true)}]`)
    .join(" ");
}

const WIDTH = 100;

/** Words of `text` in lines of at most `width` characters (a longer word gets a line of its own). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  return [...lines, line];
}

/** The command's `--help`: synopsis, description, one line per option. */
export function commandUsage(spec: CommandSpec): string {
  const rows = [...Object.entries(spec.options), ["help", HELP_OPTION] as const].map(
    ([name, o]): [string, string] => [
      (o.short !== undefined ? `-${o.short}, ` : "") + flag(name, o, false),
      // Every value an option takes by default is shown, where its help does not say it already.
      typeof o.default === "string" && !o.help.includes("(default")
        ? `${o.help} (default ${o.default})`
        : o.help,
    ],
  );
  const width = Math.max(...rows.map(([left]) => left.length)) + 4;
  const lines = rows.map(
    ([left, help]) =>
      `  ${left.padEnd(width - 2)}${wrap(help, WIDTH - width).join(`\n${" ".repeat(width)}`)}`,
  );
  const synopsis = synopsisOf(spec);
  return `usage: threatbridge ${spec.name}${synopsis === "" ? "" : ` ${synopsis}`}\n\n${spec.description}\n\noptions:\n${lines.join("\n")}`;
}

type Parsed<O extends OptionSpecs> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: false }>
>["values"];

/** The first option `args` names that `spec` does not take, with a did-you-mean where one fits. */
function unknownOption(spec: CommandSpec, args: string[]): string | undefined {
  const { tokens } = parseArgs({
    args,
    options: spec.options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  for (const token of tokens) {
    if (token.kind === "positional") return `${spec.name} takes no argument "${token.value}"`;
    if (token.kind !== "option" || Object.hasOwn(spec.options, token.name)) continue;
    const long = token.rawName.startsWith("--");
    const match = long ? suggest(token.name, [...Object.keys(spec.options), "help"]) : undefined;
    return (
      `unknown option ${token.rawName} for ${spec.name}` +
      (match !== undefined ? `; did you mean --${match}?` : "")
    );
  }
  return undefined;
}

/**
 * `--threat ID ...` (an option that takes several values): the words after its value, up to the
 * next option, are more values of it, as if the option were repeated before each.
 */
function spreadValues(spec: CommandSpec, args: string[]): string[] {
  const out: string[] = [];
  let taking: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--") return [...out, ...args.slice(i)];
    if (!arg.startsWith("-")) {
      out.push(...(taking !== undefined ? [`--${taking}`, arg] : [arg]));
      continue;
    }
    const name = arg.startsWith("--") ? (arg.slice(2).split("=")[0] ?? "") : undefined;
    const option = name !== undefined && Object.hasOwn(spec.options, name) ? spec.options[name] : undefined;
    // `--threats -5`: a value that looks like a negative number is that option's value, so that the
    // command can say what the option takes instead of the parser calling it ambiguous.
    const next = args[i + 1];
    if (option?.type === "string" && !arg.includes("=") && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i += 1;
      taking = undefined;
      continue;
    }
    out.push(arg);
    taking = option?.multiple === true && option.type === "string" ? name : undefined;
    if (taking !== undefined && !arg.includes("=") && i + 1 < args.length) out.push(args[++i] ?? "");
  }
  return out;
}

/** Parses a command's arguments with its declared options; a wrong line is a UsageError. */
export function parseCommand<O extends OptionSpecs>(spec: CommandSpec<O>, given: string[]): Parsed<O> {
  const args = spreadValues(spec, given);
  const unknown = unknownOption(spec, args);
  if (unknown !== undefined) throw new UsageError(unknown);
  try {
    return parseArgs({ args, options: spec.options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    // What is left: a value missing, or given to a flag ("Option '--threat <value>' argument missing").
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
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max)
    throw new UsageError(`--${name} takes a whole number from ${min} to ${max}, got "${value}"`);
  return n;
}
