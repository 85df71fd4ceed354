import { acquireLock } from "../state/index.js";
import { applyRewind, planRewind, type RewindStep, type StreamKind } from "../sync/index.js";
import { configFromArgs, type Io } from "./io.js";
import { freezeFromEnv, openEngineState } from "./state-open.js";
import { REWIND } from "./command-specs.js";
import { parseCommand, UsageError } from "./usage.js";
import { cliLogger } from "./wiring.js";

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
  const statePath = config.state.path;

  if (opts["dry-run"] === true) {
    // No lock and nothing written: the state's files stay byte-for-byte as they were (contract).
    const opened = await openEngineState(statePath, { readOnly: true, env: io.env });
    try {
      return report(planRewind(opened.state, streams), true, io);
    } finally {
      await opened.close();
    }
  }

  const logger = cliLogger(config, io.env);
  let lockLost = false;
  const lock = await acquireLock(statePath, {
    onLost: () => {
      lockLost = true;
    },
  });
  try {
    const opened = await openEngineState(statePath, { logger, env: io.env });
    try {
      const plan = planRewind(opened.state, streams);
      const commit = applyRewind(opened.state, plan, { freeze: freezeFromEnv(io.env) });
      // Another host took the lease over (this process stalled past it): its state wins.
      if (lockLost) {
        io.err("threatbridge: another process took the state lock over; nothing was forgotten");
        return 1;
      }
      if (commit !== null) await opened.persist(commit);
      return report(plan, false, io);
    } finally {
      await opened.close();
    }
  } finally {
    await lock.release();
  }
}
