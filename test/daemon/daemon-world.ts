import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildConnector } from "../../src/cli/wiring.js";
import { ConfigSchema, type Config } from "../../src/config/index.js";
import {
  createDaemon,
  manualScheduler,
  type Daemon,
  type DaemonOptions,
  type ManualScheduler,
} from "../../src/daemon/index.js";
import { startGitHubStandIn, type RunningStandIn } from "../../src/github-stand-in/index.js";
import { silentLogger } from "../../src/observability/index.js";
import { systemClock, type Clock, type Sleep } from "../../src/shared/clock.js";
import { startSimulator, type RunningSimulator } from "../../src/simulator/index.js";
import { openEngineState } from "../../src/cli/state-open.js";
import type { PlatformClient } from "../../src/platform/index.js";
import { createContext, type SyncContext } from "../../src/sync/index.js";

/**
 * The daemon over the real engine, in this process: the platform simulator and the GitHub
 * stand-in on 127.0.0.1, a temp state file, and a scheduler the test ticks by hand.
 */

export const REPO = "acme/security-threats";
const TOKEN = "ghp_daemon_test_token";

export interface DaemonWorld {
  sim: RunningSimulator;
  gh: RunningStandIn;
  config: Config;
  ctx: SyncContext;
  statePath: string;
  scheduler: ManualScheduler;
  daemon(opts?: Partial<DaemonOptions>): Daemon;
  /** Threats the connector gives an issue to (first seen unsolved or pending). */
  eligible: string[];
  close(): Promise<void>;
}

export interface DaemonWorldOptions {
  /** The connector's waits (platform retries, GitHub pacing); default real timers. */
  sleep?: Sleep;
  /** The connector's clock (the platform's Retry-After gate, token expiry); default the system's. */
  clock?: Clock;
  /** `limit` of the connector's list reads (default 500: every stream in one page). */
  pageLimit?: number;
  /** The longest Retry-After the platform client waits out in place (default the client's). */
  maxRetryAfterMs?: number;
  /** Wraps the platform client the engine reads through (a test's fault point between pages). */
  platform?: (client: PlatformClient) => PlatformClient;
}

export async function startDaemonWorld(
  writeBudget = { per_minute: 0, per_hour: 0, min_interval_ms: 0 },
  options: DaemonWorldOptions = {},
): Promise<DaemonWorld> {
  const sim = await startSimulator({ seed: 11, assets: 4, threats: 12 });
  const gh = await startGitHubStandIn({ tokens: [TOKEN] });
  const dir = await mkdtemp(join(tmpdir(), "threatbridge-daemon-"));
  const statePath = join(dir, "state.json");
  const config = ConfigSchema.parse({
    platform: {
      base_url: sim.url,
      token_url: `${sim.url}/oauth/token`,
      client_id: "threatbridge",
      client_secret: "threatbridge-secret",
      ...(options.pageLimit === undefined ? {} : { page_limit: options.pageLimit }),
    },
    github: { api_url: gh.url, token: TOKEN, repository: REPO, write_budget: writeBudget },
    state: { path: statePath },
    health: { port: 0, host: "127.0.0.1" },
  });
  const connector = buildConnector(config, silentLogger, {
    ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.maxRetryAfterMs === undefined ? {} : { maxRetryAfterMs: options.maxRetryAfterMs }),
  });
  const platform = options.platform ? options.platform(connector.platform) : connector.platform;
  // The engine's own store, as `run` opens it (journaled, threats written through).
  const opened = await openEngineState(statePath);
  const ctx = createContext(
    {
      config,
      ...connector,
      platform,
      logger: silentLogger,
      clock: options.clock ?? systemClock,
      persist: opened.persist,
    },
    opened.state,
  );
  const eligible = sim.sim.threatIds().filter((id) => {
    const status = sim.sim.getThreat(id)?.status;
    return status === "unsolved" || status === "pending";
  });
  const scheduler = manualScheduler({ periodMs: 60_000 });
  return {
    sim,
    gh,
    config,
    ctx,
    statePath,
    scheduler,
    eligible,
    daemon: (opts = {}) => createDaemon({ ctx, scheduler, logger: silentLogger, ...opts }),
    async close() {
      await connector.close();
      await opened.close();
      await Promise.all([sim.close(), gh.close()]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until `check()` holds, polling; fails after `limitMs` (a bound, not a timing assertion). */
export async function until(check: () => boolean, what: string, limitMs = 10_000): Promise<void> {
  const step = 10;
  for (let waited = 0; waited < limitMs; waited += step) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, step));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/**
 * Waits for the daemon's first cycle and its work: one cycle ok, an issue for every eligible threat,
 * and the queue drained (links included).
 */
export function firstCycleDone(
  w: DaemonWorld,
  daemon: { status(): { cycles: { ok: number } } },
  what = "the first cycle's issues",
): Promise<void> {
  return until(
    () =>
      daemon.status().cycles.ok === 1 &&
      w.gh.issues(REPO).length === w.eligible.length &&
      Object.keys(w.ctx.state.queue).length === 0,
    what,
  );
}

/** A promise the test resolves by hand: holds an engine call at a point the test chooses. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** The threat ids of the verdicts the engine sends from now on, in order (its `verdict_sent` events). */
export function verdictsSent(w: DaemonWorld): string[] {
  const verdicts: string[] = [];
  w.ctx.subscribe((event) => {
    if (event.type === "verdict_sent") verdicts.push(event.threatId);
  });
  return verdicts;
}
