import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/cli/commands.js";
import { commandUsage, defineCommand, parseCommand, UsageError } from "../../src/cli/usage.js";

/**
 * "Each subcommand's --help lists every flag its parser takes": a command's parser is its spec's
 * options, so the help that spec prints must name each of them, in the synopsis and in the list.
 */

const SPECS = COMMANDS.map((c) => c.spec);

function usageError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error instanceof Error ? error.message : "";
  }
  throw new Error("no usage error");
}

describe("command usage", () => {
  it.each(SPECS.map((spec) => [spec.name, spec] as const))(
    "threatbridge %s --help names every option its parser takes, in the synopsis and the option list",
    (_name, spec) => {
      const usage = commandUsage(spec);
      const [synopsis = "", ...body] = usage.split("\n");
      const list = body.slice(body.indexOf("options:"));
      for (const [name, option] of Object.entries(spec.options)) {
        const spelled = option.short !== undefined ? `-${option.short}` : `--${name}`;
        expect(synopsis, name).toMatch(new RegExp(`[[(| ]${spelled}[ \\]|)]`));
        const row = list.find((line) => line.includes(`--${name}`));
        expect(row, `--${name} in the option list`).toBeDefined();
        if (option.arg !== undefined) expect(row).toContain(`--${name} ${option.arg}`);
      }
      expect(list.some((line) => line.includes("-h, --help"))).toBe(true);
    },
  );

  it("reconcile's help shows --recreate, which only reconcile takes", () => {
    const reconcile = SPECS.find((s) => s.name === "reconcile");
    expect(reconcile && commandUsage(reconcile)).toMatch(/--recreate\s+threats whose issue a person deleted/);
  });

  it("long help text wraps under its own column, never past 100 characters", () => {
    for (const spec of SPECS) {
      for (const line of commandUsage(spec).split("\n").slice(1))
        expect(line.length, line).toBeLessThanOrEqual(100);
    }
  });
});

describe("parseCommand", () => {
  const spec = defineCommand({
    name: "sync",
    summary: "",
    description: "",
    options: {
      config: { type: "string", short: "c", arg: "FILE", help: "" },
      "dry-run": { type: "boolean", default: false, help: "" },
      "max-duration": { type: "string", arg: "S", help: "" },
    },
  });

  it("answers the declared options' values", () => {
    expect(parseCommand(spec, ["-c", "a.yaml", "--dry-run", "--max-duration", "5"])).toEqual({
      config: "a.yaml",
      "dry-run": true,
      "max-duration": "5",
    });
  });

  it("an unknown option is a usage error naming the command, with a did-you-mean where one fits", () => {
    expect(usageError(() => parseCommand(spec, ["--dryrun"]))).toBe(
      "unknown option --dryrun for sync; did you mean --dry-run?",
    );
    expect(usageError(() => parseCommand(spec, ["-c", "x", "--max-durations=5"]))).toBe(
      "unknown option --max-durations for sync; did you mean --max-duration?",
    );
    expect(usageError(() => parseCommand(spec, ["--hlep"]))).toBe(
      "unknown option --hlep for sync; did you mean --help?",
    );
    expect(usageError(() => parseCommand(spec, ["--recreate"]))).toBe("unknown option --recreate for sync");
    expect(usageError(() => parseCommand(spec, ["-x"]))).toBe("unknown option -x for sync");
  });

  it("a stray argument or a missing value is a usage error too", () => {
    expect(usageError(() => parseCommand(spec, ["now"]))).toBe('sync takes no argument "now"');
    expect(usageError(() => parseCommand(spec, ["--max-duration"]))).toContain("--max-duration");
  });

  it("contract, `retry --threat ID ...`: ids after --threat are each a threat, as is --threat repeated", () => {
    const retry = SPECS.find((s) => s.name === "retry");
    if (retry === undefined) throw new Error("no retry command");
    expect(parseCommand(retry, ["--threat", "a", "b", "--dry-run", "--threat", "c", "d"])).toMatchObject({
      threat: ["a", "b", "c", "d"],
      "dry-run": true,
    });
    expect(parseCommand(retry, ["--threat=a", "b"])).toMatchObject({ threat: ["a", "b"] });
    expect(usageError(() => parseCommand(retry, ["--all", "a"]))).toBe('retry takes no argument "a"');
    // A single-valued option takes one value, as before.
    expect(usageError(() => parseCommand(spec, ["--max-duration", "5", "6"]))).toBe(
      'sync takes no argument "6"',
    );
  });
});
