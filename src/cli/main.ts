import { ConfigError } from "../config/index.js";
import { LockHeldError, StateError } from "../state/index.js";
import type { Io } from "./io.js";
import { COMMANDS, findCommand, findGroup, USAGE } from "./commands.js";
import { suggest } from "../config/suggest.js";
import { commandUsage, UsageError } from "./usage.js";
import { version } from "./version.js";

export { version } from "./version.js";

const defaultIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
};

function topLevel(command: string | undefined, io: Io): number {
  switch (command) {
    case "--version":
    case "-v":
    case "version":
      io.out(version());
      return 0;
    case "--help":
    case "-h":
    case "help":
      io.out(USAGE);
      return 0;
    default: {
      if (command === undefined) throw new UsageError("no command given");
      // `snyc`: the first word of a command, or a word `threatbridge` answers on its own.
      const words = [...new Set(COMMANDS.map((c) => c.spec.name.split(" ")[0] ?? "")), "help", "version"];
      const match = suggest(command, words);
      throw new UsageError(
        `unknown command "${command}"${match === undefined ? "" : `; did you mean ${match}?`}`,
      );
    }
  }
}

/** Parses argv, runs one command, and answers its exit code (the contract's table). */
export async function main(argv: string[], io: Io = defaultIo): Promise<number> {
  const found = findCommand(argv);
  const group = found === undefined ? findGroup(argv[0]) : undefined;
  // A usage error shows the usage of the command it was for; the command list only when none was named.
  const usage = found !== undefined ? commandUsage(found.command.spec) : (group?.usage ?? USAGE);
  // `threatbridge <command> --help` (or -h) anywhere after the command: that command's usage, exit 0.
  const rest = found?.rest ?? argv.slice(1);
  if ((found !== undefined || group !== undefined) && (rest.includes("--help") || rest.includes("-h"))) {
    io.out(usage);
    return 0;
  }
  try {
    if (found !== undefined) return await found.command.run(found.rest, io);
    if (group !== undefined) {
      const word = argv[1];
      const match = word === undefined ? undefined : suggest(word, group.words);
      throw new UsageError(
        `${argv[0]} takes ${group.takes}, got ${word === undefined ? "nothing" : `"${word}"`}` +
          (match === undefined ? "" : `; did you mean ${argv[0]} ${match}?`),
      );
    }
    return topLevel(argv[0], io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`threatbridge: ${error.message}\n\n${usage}`);
      return 2;
    }
    if (error instanceof ConfigError) {
      io.err(error.message);
      return 2;
    }
    if (error instanceof LockHeldError || error instanceof StateError) {
      io.err(`threatbridge: ${error.message}`);
      return 1;
    }
    io.err(`threatbridge: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
