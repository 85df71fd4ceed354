import { applyRetry, planRetry, type RetryPlan, type RetrySelection } from "../sync/index.js";
import { configFromArgs, type Io } from "./io.js";
import { editState } from "./state-edit.js";
import { RETRY } from "./command-specs.js";
import { parseCommand, UsageError } from "./usage.js";

/**
 * `threatbridge retry`: puts work that GitHub or the platform refused for good (what `status` lists under
 * `refused`) back in the queue, for the next cycle. It only touches the state file, so, like
 * `status`, it needs no secret; unlike `status` it writes, so it takes the state lock as `sync`
 * does (a running `run` or `sync` makes it exit 1, naming the holder). An id with no refused work
 * is named and makes the exit 1, while the others are still re-queued: as with `rm a b`, what
 * could be done is done, and a script sees that not everything it asked for was.
 */

function selectionOf(threat: string[] | undefined, all: boolean): RetrySelection {
  const ids = threat ?? [];
  if (all && ids.length > 0) throw new UsageError("retry takes either --all or --threat ID, not both");
  if (all) return { all: true };
  if (ids.length === 0) throw new UsageError("retry needs --threat ID (repeatable) or --all");
  const blank = ids.find((id) => id.trim() === "");
  if (blank !== undefined) throw new UsageError("--threat takes a threat id, got an empty one");
  return { threatIds: ids };
}

function report(plan: RetryPlan, selection: RetrySelection, dryRun: boolean, io: Io): number {
  const verb = dryRun ? "would re-queue" : "re-queued";
  for (const r of plan.requeue) {
    io.out(`${verb} threat ${r.threatId}: ${r.action}, refused at ${r.at}: ${r.reason}`);
  }
  for (const { threatId, known } of plan.notRefused) {
    io.err(
      known
        ? `threatbridge: threat ${threatId} has no refused work to retry`
        : `threatbridge: threat ${threatId} is not in the state (\`threatbridge status\` lists refused work under "refused")`,
    );
  }
  const n = plan.requeue.length;
  const threats = `${n} ${n === 1 ? "threat" : "threats"}`;
  if (n === 0) io.out("all" in selection ? "nothing refused: nothing to re-queue" : "nothing re-queued");
  else if (dryRun) io.out(`${verb} ${threats} (dry run: the state is unchanged)`);
  else io.out(`${verb} ${threats}; the next cycle (\`sync\`, or the next of \`run\`) carries them out`);
  return plan.notRefused.length > 0 ? 1 : 0;
}

export async function retryCommand(args: string[], io: Io, now: () => number = Date.now): Promise<number> {
  const opts = parseCommand(RETRY, args);
  const selection = selectionOf(opts.threat, opts.all === true);
  // Only the state is touched: secrets the config names may be unset or empty (as for `status`).
  const { config } = await configFromArgs(opts.config, io.env, { unresolvedSecrets: "placeholder" });
  return editState(config, io, opts["dry-run"] === true, {
    plan: (state) => planRetry(state, selection),
    apply: (state, plan, freeze) => applyRetry(state, plan, { now: new Date(now()).toISOString(), freeze }),
    report: (plan, dryRun) => report(plan, selection, dryRun, io),
    undone: "nothing was re-queued",
  });
}
