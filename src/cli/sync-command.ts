import {
  dryRunReads,
  persist,
  runCycle,
  stoppedText,
  summarizeDryRun,
  threatsWithIssue,
  type CounterName,
  type CycleReport,
  type SyncContext,
} from "../sync/index.js";
import { FAILURE_HINTS, type Threat } from "../platform/index.js";
import { DATA_MAPS, snakeKeys } from "../shared/index.js";
import {
  drainSeconds,
  drainView,
  progressTally,
  queuedText,
  startTerminalProgress,
  type BudgetLimits,
} from "../observability/index.js";
import { noteGitHubSide } from "./cycle-github.js";
import { collectingSink, formatPlan, tapThreats } from "./dry-run-output.js";
import { RECONCILE, SYNC } from "./command-specs.js";
import { intOption, parseCommand } from "./usage.js";
import { configFromArgs, type Io } from "./io.js";
import { cliLogger, secretsOf, type Connector } from "./wiring.js";
import { terminalWriter, type TerminalWriter } from "./terminal-writer.js";
import { openEngine } from "./open-engine.js";

/**
 * The human summary, from the cycle summary observer's tally (the same as `--json`'s `counters`);
 * `queued` says what is left for the write budget and how long it takes (observability/eta.ts).
 */
function reportText(report: CycleReport, reconcile: boolean, queued: string, logged: boolean): string {
  const c = (name: CounterName): number => report.counters[name] ?? 0;
  const parts = [
    `cycle ${report.ok ? "ok" : "failed"}`,
    `read ${c("threats_read")} threats, ${c("assets_read")} assets`,
    `done ${report.drained.done}, failed ${report.drained.failed}`,
    `created ${c("issues_created")}, updated ${c("issues_updated") + c("issues_state_changed")}, verdicts ${c("platform_verdicts")}, links ${c("platform_links")}`,
    report.queue.total === 0 ? queued : `${queued} (the next \`sync\` or \`run\` carries them out)`,
  ];
  // The SLA's writes, only where there were some (the line is unchanged without SLAs).
  const sla = [c("sla_breach_labels"), c("milestones_created"), c("issues_milestoned")];
  if (sla.some((n) => n > 0))
    parts.push(`sla: breach labels ${sla[0]}, milestones made ${sla[1]}, issues put in one ${sla[2]}`);
  if (reconcile) {
    parts.push(
      `adopted ${c("issues_adopted")} issues`,
      `second issues carrying a mapped threat's marker (left alone) ${c("duplicate_markers")}`,
    );
  }
  return parts.join("; ") + (report.error ? `\nerror: ${errorOnce(report.error, logged)}` : "");
}

/**
 * `sync --json`: the report with snake_case keys (one vocabulary with the logs and `status --json`);
 * what stays queued is `queue.total`, so the drain's count of subjects it left for later (summed
 * over the walk's drains, not a count of work) is not shown.
 */
function reportJson(
  report: CycleReport & { interrupted?: NodeJS.Signals; platformNotBefore?: string },
): string {
  const { deferred: _left, ...drained } = report.drained;
  return JSON.stringify(snakeKeys({ ...report, drained }, DATA_MAPS));
}

/**
 * The cycle's error as the summary says it: when the cycle's log line (stderr) carried it already,
 * the platform's hint of what to check (`FAILURE_HINTS`) is said there only, not a second time.
 */
function errorOnce(error: string, logged: boolean): string {
  if (!logged) return error;
  const hint = Object.values(FAILURE_HINTS).find((h) => error.endsWith(`; ${h}`));
  return hint === undefined
    ? error
    : `${error.slice(0, -hint.length - 2)} (the log line above says what to check)`;
}

function interruptedText(report: CycleReport, signal: NodeJS.Signals): string {
  const q = report.queue;
  const byAction = Object.entries(q.byAction)
    .map(([action, n]) => `${action} ${n}`)
    .join(", ");
  return (
    `sync interrupted by ${signal}: the state is saved; ${report.drained.done} done, ${q.total} stay queued` +
    (q.total > 0 ? ` (${byAction}); the next \`sync\` or \`run\` carries them out` : "")
  );
}

/** Seconds the given writes take now: the budget's windows as they stand and GitHub's rate limit as last seen. */
function etaNow(
  ctx: SyncContext,
  connector: Pick<Connector, "rateLimitSeen">,
): (writes: number) => number | null {
  return (writes) =>
    drainSeconds(writes, drainView(ctx.github.budget.snapshot(), connector.rateLimitSeen()), ctx.clock.now());
}

function budgetOf(ctx: SyncContext): BudgetLimits {
  const b = ctx.config.github.write_budget;
  return { perMinute: b.per_minute, perHour: b.per_hour, minIntervalMs: b.min_interval_ms };
}

/**
 * On a terminal (or with THREATBRIDGE_PROGRESS=1, for tests: one line per refresh), a progress line
 * on stderr, below the log records, with the ETA under every limit that binds now.
 */
function startSyncProgress(
  io: Io,
  ctx: SyncContext,
  connector: Pick<Connector, "rateLimitSeen">,
  terminal: TerminalWriter | null,
): { stop(): void } | null {
  if (terminal === null && io.env["THREATBRIDGE_PROGRESS"] !== "1") return null;
  const tally = progressTally();
  ctx.subscribe(tally.observe);
  return startTerminalProgress({
    sample: () => tally.sample(Object.keys(ctx.state.queue).length),
    eta: etaNow(ctx, connector),
    budget: budgetOf(ctx),
    display: terminal ?? { progress: (line) => line !== "" && io.err(line) },
  });
}

/** `sync` and `reconcile`: exactly one cycle, then exit (0 ok, 1 failed, 2 config/usage). */
export async function syncCommand(args: string[], io: Io, mode: "sync" | "reconcile"): Promise<number> {
  const opts = mode === "sync" ? parseCommand(SYNC, args) : parseCommand(RECONCILE, args);
  const maxDuration = intOption(
    "max-duration" in opts ? opts["max-duration"] : undefined,
    "max-duration",
    1,
    7 * 86_400,
  );
  const { config } = await configFromArgs(opts.config, io.env);
  const secrets = secretsOf(config);
  // On a terminal, records and the progress line share one writer, so they never share a line.
  const logTo = io.log;
  const terminal =
    logTo === undefined && process.stderr.isTTY
      ? terminalWriter(process.stderr, { columns: () => process.stderr.columns })
      : null;
  const logger = cliLogger(
    config,
    io.env,
    secrets,
    terminal !== null,
    terminal?.records ?? (logTo ? { write: (record: string) => logTo(record) } : undefined),
  );
  const json = opts.json;
  const reconcile = mode === "reconcile";
  // A stop ends the cycle between steps and abandons the platform request in flight, so that a
  // hung or trickling platform cannot hold a SIGTERM past a container's grace period.
  const abort = new AbortController();
  let interruptedBy: NodeJS.Signals | null = null;
  const stop = (signal: NodeJS.Signals): void => {
    interruptedBy = signal;
    abort.abort(new Error(signal));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  // `reconcile --recreate`: threats whose issue a person deleted get a new one.
  const recreate = "recreate" in opts && opts.recreate;
  try {
    if (opts["dry-run"] === true) {
      // Dry run: no lock, no state write — the file stays byte-for-byte as it was (contract).
      const sink = collectingSink();
      const threatsRead = new Map<string, Threat>();
      const engine = await openEngine(config, {
        logger,
        env: io.env,
        ...(io.clock ? { clock: io.clock } : {}),
        secrets,
        stop: abort.signal,
        dryRun: sink,
        platform: (client) => tapThreats(client, threatsRead),
      });
      try {
        const ctx = engine.ctx;
        const hadIssue = threatsWithIssue(ctx);
        const reads = dryRunReads();
        ctx.subscribe(reads.observe);
        const report = await runCycle(ctx, { reconcile, recreate, signal: abort.signal });
        const summary = summarizeDryRun(ctx, threatsRead, hadIssue, reads.read());
        if (json) for (const record of [...summary.adopted, ...sink.records]) io.out(JSON.stringify(record));
        else {
          const time = { githubWrites: sink.githubWrites, budget: budgetOf(ctx) };
          io.out(secrets.scrub(formatPlan(sink.records, summary, time, report.error)));
        }
        // The cycle logged the error (stderr); with --json the exit code says it.
        return report.error ? 1 : 0;
      } finally {
        await engine.close();
      }
    }
    // Another host took the lease over (this process stalled past it): stop writing at once.
    let lockLost = false;
    const engine = await openEngine(config, {
      logger,
      env: io.env,
      ...(io.clock ? { clock: io.clock } : {}),
      secrets,
      stop: abort.signal,
      onLockLost: () => {
        lockLost = true;
        logger.error(
          "the state lock was taken over by another process (this one stalled past its lease); stopping without further writes",
        );
        abort.abort(new Error("lock lost"));
      },
    });
    try {
      const { ctx, connector } = engine;
      const deadline = maxDuration !== undefined ? Date.now() + maxDuration * 1000 : undefined;
      const progress = startSyncProgress(io, ctx, connector, terminal);
      let report: CycleReport;
      try {
        report = await runCycle(ctx, {
          reconcile,
          recreate,
          ignoreBackoff: true,
          signal: abort.signal,
          ...(deadline !== undefined ? { deadline } : {}),
        });
      } finally {
        progress?.stop();
        // On a terminal, the summary of the writes held back in the last seconds comes now.
        logger.flush();
      }
      if (lockLost) {
        io.err("sync stopped: another process holds the state lock now; nothing more was saved");
        return 1;
      }
      noteGitHubSide(ctx, connector, report.startedAt);
      await persist(ctx);
      if (interruptedBy !== null) {
        // Not "cycle ok": the operator stopped it, and the rest waits in the state.
        io.out(
          secrets.scrub(
            json
              ? reportJson({ ...report, interrupted: interruptedBy })
              : interruptedText(report, interruptedBy),
          ),
        );
        return 1;
      }
      // Said where the operator looks: a Retry-After kept the platform's streams unread.
      const notBefore = connector.platform.stats().notBefore;
      const waiting = notBefore === undefined ? undefined : new Date(notBefore).toISOString();
      const text = json
        ? reportJson(waiting === undefined ? report : { ...report, platformNotBefore: waiting })
        : reportText(
            report,
            reconcile,
            queuedText(report.queue.total, etaNow(ctx, connector)(report.queue.total), budgetOf(ctx)),
            logger.isLevelEnabled("error"),
          ) +
          (waiting === undefined
            ? ""
            : `\nplatform: asked not to be called before ${waiting} (Retry-After); it is read after that`) +
          (report.streamsStopped ?? []).map((s) => `\nstopped: ${stoppedText(s.stream, s)}`).join("");
      io.out(secrets.scrub(text));
      // A stream left unread is not "one cycle done", however well the rest went.
      return report.ok && report.streamsStopped === undefined ? 0 : 1;
    } finally {
      await engine.close();
    }
  } finally {
    process.off("SIGTERM", stop);
    process.off("SIGINT", stop);
  }
}
