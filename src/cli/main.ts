import { createRequire } from "node:module";
import { ConfigError } from "../config/index.js";
import { LockHeldError, StateError } from "../state/index.js";
import type { Io } from "./io.js";
import { COMMAND_USAGE, USAGE, UsageError } from "./usage.js";

const require = createRequire(import.meta.url);

export function version(): string {
  const pkg: unknown = require("../../package.json");
  if (typeof pkg === "object" && pkg !== null && "version" in pkg && typeof pkg.version === "string") {
    return pkg.version;
  }
  return "unknown";
}

const defaultIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
};

// Commands load their modules on demand: `status` or `config validate` never load Octokit.
async function dispatch(command: string | undefined, rest: string[], io: Io): Promise<number> {
  switch (command) {
    case "sync":
    case "reconcile":
      return (await import("./sync-command.js")).syncCommand(rest, io, command);
    case "status":
      return (await import("./status-command.js")).statusCommand(rest, io);
    case "retry":
      return (await import("./retry-command.js")).retryCommand(rest, io);
    case "rewind":
      return (await import("./rewind-command.js")).rewindCommand(rest, io);
    case "check":
      return (await import("./check-command.js")).checkCommand(rest, io);
    case "config":
      return (await import("./config-command.js")).configCommand(rest, io);
    case "simulate":
      return (await import("./simulate-command.js")).simulateCommand(rest, io);
    case "run":
      return (await import("./run-command.js")).runCommand(rest, io);
    case "demo":
      return (await import("./demo-command.js")).demoCommand(rest, io);
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
    default:
      throw new UsageError(command === undefined ? "no command given" : `unknown command "${command}"`);
  }
}

/** Parses argv, runs one command, and answers its exit code (the contract's table). */
export async function main(argv: string[], io: Io = defaultIo): Promise<number> {
  const [command, ...rest] = argv;
  // `threatbridge <command> --help` (or -h) anywhere after the command: that command's usage, exit 0.
  const usage =
    command !== undefined && Object.hasOwn(COMMAND_USAGE, command) ? COMMAND_USAGE[command] : undefined;
  if (usage !== undefined && (rest.includes("--help") || rest.includes("-h"))) {
    io.out(usage);
    return 0;
  }
  try {
    return await dispatch(command, rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`threatbridge: ${error.message}\n\n${USAGE}`);
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
