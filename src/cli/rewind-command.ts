import { applyRewind, planRewind, type RewindStep, type StreamKind } from "../sync/index.js";
import { configFromArgs, type Io } from "./io.js";
import { editState } from "./state-edit.js";
import { REWIND } from "./command-specs.js";
import { parseCommand, UsageError } from "./usage.js";

/**
 * `threatbridge rewind`: forgets a stream's saved cursor, so that the next cycle reads that stream
 * from its beginning. It is the way out of a cursor the platform refuses (`request/invalid-cursor`:
 * a state restored from another installation, a platform-side reset), which stops that stream until
 * then. Like `retry`, it touches the state file only (no network, no secret) and takes the state
 * lock as `sync` does; `--dry-run` takes no lock and leaves every file of the state as it was.
 */

function streamsOf(opts: { threats: boolean; assets: boolean; all: boolean }): Set<StreamKind> {
  if (opts.all && (opts.threats || opts.assets)) {
    throw new UsageError("rewind takes --all, or --threats and/or --assets, not both");
  }
  if (opts.all) return new Set(["assets", "threats"]);
  const streams = new Set<StreamKind>();
  if (opts.assets) streams.add("assets");
  if (opts.threats) streams.add("threats");
  if (streams.size === 0) throw new UsageError("rewind needs --threats, --assets or --all");
  return streams;
}

function describe(step: RewindStep, dryRun: boolean): string {
  if (step.cursor === null && step.refused === undefined) {
    return `${step.stream}: already reads from its beginning; nothing to forget`;
  }
  const what = step.cursor === null ? "the stream's stop" : "its saved cursor";
  const why = step.refused ? ` (refused by the platform at ${step.refused.at}: ${step.refused.detail})` : "";
  return `${step.stream}: ${dryRun ? "would forget" : "forgot"} ${what}${why}`;
}

function report(plan: readonly RewindStep[], dryRun: boolean, io: Io): number {
  for (const step of plan) io.out(describe(step, dryRun));
  const rewound = plan.filter((s) => s.cursor !== null || s.refused !== undefined).map((s) => s.stream);
  if (rewound.length === 0) io.out("nothing forgotten");
  else if (dryRun) io.out("dry run: the state is unchanged");
  else {
    io.out(
      `the next cycle (\`sync\`, or the next of \`run\`) reads ${rewound.join(" and ")} from the beginning; ` +
        "what the state already holds costs no GitHub writes",
    );
  }
  return 0;
}

export async function rewindCommand(args: string[], io: Io): Promise<number> {
  const opts = parseCommand(REWIND, args);
  const streams = streamsOf({
    threats: opts.threats === true,
    assets: opts.assets === true,
    all: opts.all === true,
  });
  // Only the state is touched: secrets the config names may be unset or empty (as for `status`).
  const { config } = await configFromArgs(opts.config, io.env, { unresolvedSecrets: "placeholder" });
  return editState(config, io, opts["dry-run"] === true, {
    plan: (state) => planRewind(state, streams),
    apply: (state, plan, freeze) => applyRewind(state, plan, { freeze }),
    report: (plan, dryRun) => report(plan, dryRun, io),
    undone: "nothing was forgotten",
  });
}
