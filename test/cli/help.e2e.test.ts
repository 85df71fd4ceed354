import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { COMMAND_USAGE } from "../../src/cli/usage.js";
import { assertBuilt, CLI, runMain } from "../e2e/world.js";

/**
 * `threatbridge <command> --help` (and -h) prints that command's usage and exits 0, for every
 * command. Each flag of each command through the built CLI's `main` in this process; a child
 * process shows once that the executable prints the same and exits 0 with nothing on stderr.
 */

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env["PATH"] ?? "" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`threatbridge ${args.join(" ")} did not finish`));
    }, 20_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const COMMANDS = [
  "run",
  "sync",
  "status",
  "retry",
  "rewind",
  "check",
  "config",
  "reconcile",
  "simulate",
  "demo",
];

describe("<command> --help", () => {
  it("every command has its usage", () => {
    expect(Object.keys(COMMAND_USAGE).sort()).toEqual([...COMMANDS].sort());
  });

  it.each(
    COMMANDS.flatMap((command) => [
      [command, "--help"],
      [command, "-h"],
    ]),
  )(
    "threatbridge %s %s prints that command's usage and exits 0 (no config, no network)",
    async (command, flag) => {
      const r = await runMain([command, flag], { PATH: process.env["PATH"] ?? "" });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`usage: threatbridge ${command}`);
      expect(r.stderr).toBe("");
    },
  );

  it("the executable: threatbridge sync --help prints the usage on stdout, nothing on stderr, exit 0", async () => {
    assertBuilt();
    const r = await run(["sync", "--help"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("usage: threatbridge sync");
    expect(r.stderr).toBe("");
  });

  it("--help after other options and under config's subcommands still answers usage", async () => {
    assertBuilt();
    const sync = await run(["sync", "--dry-run", "--help"]);
    expect(sync.code).toBe(0);
    expect(sync.stdout).toContain("--max-duration S");
    const validate = await run(["config", "validate", "--help"]);
    expect(validate.code).toBe(0);
    expect(validate.stdout).toContain("threatbridge config validate");
  });

  it("an unknown option is still a usage error (exit 2)", async () => {
    assertBuilt();
    const r = await run(["sync", "--frobnicate"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("usage:");
  });
});
