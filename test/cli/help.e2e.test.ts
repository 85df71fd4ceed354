import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/cli/commands.js";
import { assertBuilt, CLI, runMain } from "../e2e/world.js";

/**
 * `threatbridge <command> --help` (and -h) prints that command's usage and exits 0, for every
 * command; an unknown option prints that command's usage with a did-you-mean and exits 2. Each flag of each command through the built CLI's `main` in this process; a child
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

const NAMES = COMMANDS.map((c) => c.spec.name);
const ENV = { PATH: process.env["PATH"] ?? "" };

describe("<command> --help", () => {
  it("every command of the contract has its usage", () => {
    for (const name of [
      "run",
      "sync",
      "status",
      "retry",
      "rewind",
      "check",
      "config validate",
      "config schema",
    ])
      expect(NAMES).toContain(name);
    for (const name of ["reconcile", "simulate", "demo"]) expect(NAMES).toContain(name);
  });

  it.each(NAMES.flatMap((name) => [[name, "--help"] as const, [name, "-h"] as const]))(
    "threatbridge %s %s prints that command's usage and exits 0 (no config, no network)",
    async (name, flag) => {
      const r = await runMain([...name.split(" "), flag], ENV);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`usage: threatbridge ${name}`);
      expect(r.stderr).toBe("");
    },
  );

  it.each(NAMES)(
    "threatbridge %s --bogus-flag: unknown option, that command's usage (not the command list), exit 2",
    async (name) => {
      const r = await runMain([...name.split(" "), "--bogus-flag"], ENV);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`threatbridge: unknown option --bogus-flag for ${name}\n`);
      expect(r.stderr).toContain(`usage: threatbridge ${name}`);
      expect(r.stderr).not.toContain("commands:");
      expect(r.stdout).toBe("");
    },
  );

  it("a near miss gets a did-you-mean: sync --dryrun, reconcile --recreat, simulate --with-gihub", async () => {
    const cases = [
      [["sync", "--dryrun"], "--dry-run"],
      [["reconcile", "--recreat"], "--recreate"],
      [["simulate", "--with-gihub"], "--with-github"],
      [["retry", "--threats", "t-1"], "--threat"],
      [["config", "validate", "--conifg", "x.yaml"], "--config"],
    ] as const;
    for (const [args, meant] of cases) {
      const r = await runMain([...args], ENV);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toContain(`; did you mean ${meant}?`);
    }
  });

  it("a mistyped command gets a did-you-mean and the command list, exit 2: snyc, stauts, config valdate", async () => {
    const cases = [
      [["snyc"], 'unknown command "snyc"; did you mean sync?'],
      [["stauts", "--json"], 'unknown command "stauts"; did you mean status?'],
      [["iint"], 'unknown command "iint"; did you mean init?'],
      [
        ["config", "valdate"],
        'config takes "validate" or "schema", got "valdate"; did you mean config validate?',
      ],
    ] as const;
    for (const [args, message] of cases) {
      const r = await runMain([...args], ENV);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toContain(`threatbridge: ${message}\n`);
      expect(r.stdout).toBe("");
    }
    const far = await runMain(["frobnicate"], ENV);
    expect(far.code).toBe(2);
    expect(far.stderr).toContain('threatbridge: unknown command "frobnicate"\n');
    expect(far.stderr).toContain("commands:");
  });

  it("config with no or an unknown second word shows both config commands' usage, exit 2", async () => {
    for (const args of [["config"], ["config", "validat"]]) {
      const r = await runMain(args, ENV);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('config takes "validate" or "schema"');
      expect(r.stderr).toContain("usage: threatbridge config validate");
      expect(r.stderr).toContain("usage: threatbridge config schema");
    }
    const help = await runMain(["config", "--help"], ENV);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("usage: threatbridge config schema");
  });

  it("a usage error found by the command itself shows that command's usage (retry with neither --threat nor --all)", async () => {
    const r = await runMain(["retry"], ENV);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("retry needs --threat ID");
    expect(r.stderr).toContain("usage: threatbridge retry");
  });

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

  it("the executable: an unknown option is a usage error (exit 2) with the command's usage", async () => {
    assertBuilt();
    const r = await run(["sync", "--dryrun"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option --dryrun for sync; did you mean --dry-run?");
    expect(r.stderr).toContain("usage: threatbridge sync");
  });
});
