import type { Io } from "./io.js";
import * as specs from "./command-specs.js";
import { commandUsage, synopsisOf, type CommandSpec } from "./usage.js";

/**
 * The commands `threatbridge` answers, in the order the usage lists them. A new command is one
 * spec in ./command-specs.ts and one entry here; main dispatches, answers `--help` and lists it
 * from this table. Each command's module is loaded on demand: `status` or `config validate`
 * never load Octokit.
 */
export interface Command {
  spec: CommandSpec;
  run(args: string[], io: Io): Promise<number>;
}

export const COMMANDS: readonly Command[] = [
  { spec: specs.RUN, run: async (args, io) => (await import("./run-command.js")).runCommand(args, io) },
  {
    spec: specs.SYNC,
    run: async (args, io) => (await import("./sync-command.js")).syncCommand(args, io, "sync"),
  },
  {
    spec: specs.STATUS,
    run: async (args, io) => (await import("./status-command.js")).statusCommand(args, io),
  },
  { spec: specs.RETRY, run: async (args, io) => (await import("./retry-command.js")).retryCommand(args, io) },
  {
    spec: specs.REWIND,
    run: async (args, io) => (await import("./rewind-command.js")).rewindCommand(args, io),
  },
  { spec: specs.CHECK, run: async (args, io) => (await import("./check-command.js")).checkCommand(args, io) },
  {
    spec: specs.CONFIG_VALIDATE,
    run: async (args, io) => (await import("./config-command.js")).configValidate(args, io),
  },
  {
    spec: specs.CONFIG_SCHEMA,
    run: async (args, io) => (await import("./config-command.js")).configSchema(args, io),
  },
  {
    spec: specs.RECONCILE,
    run: async (args, io) => (await import("./sync-command.js")).syncCommand(args, io, "reconcile"),
  },
  {
    spec: specs.SIMULATE,
    run: async (args, io) => (await import("./simulate-command.js")).simulateCommand(args, io),
  },
  { spec: specs.INIT, run: async (args, io) => (await import("./init-command.js")).initCommand(args, io) },
  { spec: specs.DEMO, run: async (args, io) => (await import("./demo-command.js")).demoCommand(args, io) },
];

/** The command `argv` names ("config validate" takes two words) and the arguments after it. */
export function findCommand(argv: readonly string[]): { command: Command; rest: string[] } | undefined {
  for (const command of COMMANDS) {
    const words = command.spec.name.split(" ");
    if (words.every((word, i) => argv[i] === word)) return { command, rest: argv.slice(words.length) };
  }
  return undefined;
}

/**
 * A first word that only begins commands ("config"): the usage of each command under it, for
 * `threatbridge config --help` and for `threatbridge config` with no or an unknown second word.
 */
export function findGroup(
  word: string | undefined,
): { usage: string; takes: string; words: string[] } | undefined {
  const under = COMMANDS.filter((c) => c.spec.name.startsWith(`${word} `));
  if (under.length === 0) return undefined;
  const words = under.map((c) => c.spec.name.slice(`${word} `.length));
  const quoted = words.map((w) => `"${w}"`);
  return {
    usage: under.map((c) => commandUsage(c.spec)).join("\n\n"),
    takes: `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1) ?? ""}`,
    words,
  };
}

/** "[-c FILE] (--threat ID ... | --all)" into its bracketed groups, which a line never splits. */
function groups(synopsis: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of synopsis) {
    if (ch === " " && depth === 0) {
      if (current !== "") out.push(current);
      current = "";
      continue;
    }
    if (ch === "[" || ch === "(") depth++;
    if (ch === "]" || ch === ")") depth--;
    current += ch;
  }
  return current === "" ? out : [...out, current];
}

/** The command, its options (in lines that never split a bracket), and what it does below them. */
function commandLine(spec: CommandSpec): string {
  const indent = " ".repeat(20);
  const lines: string[] = [];
  let line = `  ${spec.name.padEnd(18)}`;
  for (const group of groups(synopsisOf(spec))) {
    if (line.trim().length > spec.name.length && line.length + 1 + group.length > 100) {
      lines.push(line.trimEnd());
      line = indent;
    }
    line += line.endsWith(" ") ? group : ` ${group}`;
  }
  return [...lines, line.trimEnd(), `${indent}${spec.summary}`].join("\n");
}

export const USAGE = `usage: threatbridge <command> [options]

commands:
${COMMANDS.map((c) => commandLine(c.spec)).join("\n")}

\`threatbridge <command> --help\` shows one command's options.
-c defaults to $THREATBRIDGE_CONFIG, then config/threatbridge.yaml.
exit codes: 0 ok, 1 failed, 2 config or usage error.`;
