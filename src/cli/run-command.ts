import {
  cronScheduler,
  createDaemon,
  liveness,
  metricsSources,
  readiness,
  RUN_RETRY_AFTER_WAIT_MS,
  type Daemon,
  type Scheduler,
} from "../daemon/index.js";
import { SEVERITIES } from "../config/index.js";
import { startHealthServer } from "../observability/index.js";
import { buildInfo, createMetrics } from "../observability/metrics.js";
import { managesIssue } from "../sync/index.js";
import { createWebhookReceiver } from "../webhooks/index.js";
import { openEngine, type OpenedEngine } from "./open-engine.js";
import { configFromArgs, type Io } from "./io.js";
import { RUN } from "./command-specs.js";
import { parseCommand } from "./usage.js";
import { cliLogger, secretsOf } from "./wiring.js";
import { noteGitHubSide } from "./cycle-github.js";
import { version } from "./version.js";

export interface RunCommandOptions {
  /** Default: the config's `schedule` through node-cron. */
  scheduler?: Scheduler;
}

/**
 * `run` (contract): the daemon. Takes the state lock, serves `/healthz`, `/readyz` and `/metrics`
 * on `health.port`, runs a cycle now and one per `schedule`, drains the queue in between.
 * SIGTERM/SIGINT: no new work, the write in flight finishes, the state is saved, exit 0.
 * Exits 1 when the lock is held, the state file is unreadable or the health port is taken; 2 on a
 * config error (both through `main`).
 */
export async function runCommand(args: string[], io: Io, opts: RunCommandOptions = {}): Promise<number> {
  const values = parseCommand(RUN, args);
  const { config } = await configFromArgs(values.config, io.env);
  const secrets = secretsOf(config);
  const logger = cliLogger(config, io.env, secrets);
  let lockLost = false;
  // Signals are ours from the moment the lock is: a stop during start-up still ends in exit 0.
  let daemon: Daemon | null = null;
  let stopRequested = false;
  // Also ends the platform request in flight (a read at once, a write after its grace): a hung
  // platform cannot hold a stop.
  const platformStop = new AbortController();
  const stop = (signal: NodeJS.Signals): void => {
    logger.info({ signal }, "stopping: finishing the work in flight, then saving the state");
    stopRequested = true;
    platformStop.abort(new Error("stopping"));
    daemon?.stop();
  };
  // Installed before the lock and the state are taken, as a long first import may be stopped too.
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  let engine: OpenedEngine;
  try {
    engine = await openEngine(config, {
      logger,
      env: io.env,
      ...(io.clock ? { clock: io.clock } : {}),
      secrets,
      stop: platformStop.signal,
      // The loop goes on with other work while the platform pauses, rather than wait inside a request.
      maxRetryAfterMs: RUN_RETRY_AFTER_WAIT_MS,
      // Another host took the lease over (this process stalled past it): stop, and say so by exit 1.
      onLockLost: () => {
        lockLost = true;
        logger.error(
          "the state lock was taken over by another process (this one stalled past its lease); stopping",
        );
        stopRequested = true;
        platformStop.abort(new Error("lock lost"));
        daemon?.stop();
      },
    });
  } catch (error) {
    process.off("SIGTERM", stop);
    process.off("SIGINT", stop);
    throw error;
  }
  try {
    const { ctx, connector: built } = engine;
    // /metrics observes the engine's events: what it did, and each cycle's end.
    const webhook = config.github.webhook;
    const webhookPath = webhook?.path !== undefined && webhook.secret !== undefined ? webhook.path : null;
    const sources = metricsSources(ctx, {
      status: () => daemon?.status() ?? null,
      rateLimit: built.rateLimitSeen,
    });
    const metrics = createMetrics({
      sources,
      knownLabels: { severities: SEVERITIES },
      build: buildInfo(version(), io.env),
    });
    ctx.subscribe(metrics.observe);
    let noted = ctx.state.lastCycle;
    ctx.subscribe((event) => {
      // Saved with the next state write; `status` shows it. Only on a cycle that
      // recorded itself: an idle cycle keeps the last record and writes nothing.
      if (event.type === "cycle_finished" && ctx.state.lastCycle !== noted) {
        noteGitHubSide(ctx, built);
        noted = ctx.state.lastCycle;
      }
    });
    const running = createDaemon({
      ctx,
      scheduler: opts.scheduler ?? cronScheduler(config.schedule),
      logger,
      rateLimit: built.rateLimitSeen,
    });
    daemon = running;
    if (stopRequested) running.stop();
    // GitHub's deliveries only name an issue for the loop to read: the answer never waits for work.
    const routes =
      webhookPath !== null && webhook?.secret !== undefined
        ? {
            [webhookPath]: createWebhookReceiver({
              secret: webhook.secret,
              previousSecrets: webhook.previous_secrets,
              logger,
              onIssue: (notice) => {
                if (!managesIssue(ctx, notice.repo, notice.number, notice.threatId)) return false;
                running.issueChanged(notice.repo, notice.number);
                return true;
              },
              onOutcome: (outcome, reason) => metrics.webhookDelivery(outcome, reason),
            }),
          }
        : undefined;
    const health = await startHealthServer({
      host: config.health.host,
      port: config.health.port,
      liveness: () => liveness(running.status()),
      readiness: () => readiness(running.status(), Date.now()),
      metrics: () => metrics.render(),
      ...(routes !== undefined ? { routes } : {}),
      logger,
    });
    try {
      logger.info(
        {
          health: health.url,
          schedule: config.schedule,
          state: config.state.path,
          ...(webhookPath !== null ? { webhook: `${health.url}${webhookPath}` } : {}),
        },
        "threatbridge is running",
      );
      await running.run();
      if (lockLost) return 1;
      logger.info("stopped; the state is saved");
      return 0;
    } finally {
      await health.close();
    }
  } finally {
    process.off("SIGTERM", stop);
    process.off("SIGINT", stop);
    await engine.close();
  }
}
