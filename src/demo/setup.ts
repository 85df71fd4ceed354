import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigSchema, type Config } from "../config/index.js";
import { startGitHubStandIn, type RunningStandIn } from "../github-stand-in/index.js";
import type { Logger } from "../observability/index.js";
import { startSimulator, type RunningSimulator } from "../simulator/index.js";
import type { Clock } from "../shared/clock.js";
import type { SyncContext } from "../sync/index.js";

/**
 * The demo's world, all on 127.0.0.1 and in this process: a small seeded platform simulator, the
 * GitHub stand-in, and the connector over a temp state file that is removed at the end.
 */

export const DEMO_REPO = "acme/security-threats";
const DEMO_TOKEN = "ghp_demo_token_not_a_secret";
const CLIENT_ID = "threatbridge-demo";
const CLIENT_SECRET = "threatbridge-demo-secret";

/** An engine opened over a config, and how to release it (its clients, its state, its lock). */
interface DemoEngine {
  ctx: SyncContext;
  close(): Promise<void>;
}

/**
 * Opens the real engine from a config (the CLI's `openEngine`, given by the caller as the demo
 * sits beside the CLI, not above it), so that the demo runs what `run` runs.
 */
export type OpenDemoEngine = (config: Config, logger: Logger, clock?: Clock) => Promise<DemoEngine>;

export interface DemoWorld {
  sim: RunningSimulator;
  gh: RunningStandIn;
  ctx: SyncContext;
  close(): Promise<void>;
}

interface DemoWorldOptions {
  openEngine: OpenDemoEngine;
  logger: Logger;
  seed: number;
  threats: number;
  assets: number;
  /** Where the temp state directory goes (default: the OS temp directory). */
  tmpRoot?: string;
  /** Settings beside the base ones (the workflow demo's grouping, SLA and acceptance). */
  extraConfig?: Record<string, unknown>;
  /** The story's clock, for the engine, the simulator and the stand-in alike (the workflow demo lets days pass). */
  clock?: Clock;
}

function demoConfig(
  sim: RunningSimulator,
  gh: RunningStandIn,
  statePath: string,
  extra: Record<string, unknown> = {},
): Config {
  // The caller's `github` settings (the workflow demo's project) join the stand-in's.
  const { github: extraGitHub, ...rest } = extra;
  return ConfigSchema.parse({
    ...rest,
    platform: {
      base_url: sim.url,
      token_url: `${sim.url}/oauth/token`,
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    },
    github: {
      api_url: gh.url,
      token: DEMO_TOKEN,
      repository: DEMO_REPO,
      // A local stand-in has no secondary rate limits to respect: no pacing, so the demo is quick.
      write_budget: { per_minute: 0, per_hour: 0, min_interval_ms: 0 },
      ...(typeof extraGitHub === "object" && extraGitHub !== null ? extraGitHub : {}),
    },
    state: { path: statePath },
    health: { port: 0, host: "127.0.0.1" },
  });
}

export async function startDemoWorld(opts: DemoWorldOptions): Promise<DemoWorld> {
  const cleanups: Array<() => Promise<void>> = [];
  const close = async (): Promise<void> => {
    for (const cleanup of cleanups.reverse()) {
      await cleanup().catch(() => undefined);
    }
  };
  try {
    const sim = await startSimulator({
      host: "127.0.0.1",
      port: 0,
      seed: opts.seed,
      assets: opts.assets,
      threats: opts.threats,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      ...(opts.clock !== undefined ? { clock: opts.clock } : {}),
    });
    cleanups.push(() => sim.close());
    const gh = await startGitHubStandIn({
      host: "127.0.0.1",
      port: 0,
      tokens: [DEMO_TOKEN],
      ...(opts.clock !== undefined ? { clock: opts.clock } : {}),
    });
    cleanups.push(() => gh.close());
    const dir = await mkdtemp(join(opts.tmpRoot ?? tmpdir(), "threatbridge-demo-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const config = demoConfig(sim, gh, join(dir, "state.json"), opts.extraConfig);
    const engine = await opts.openEngine(config, opts.logger, opts.clock);
    cleanups.push(() => engine.close());
    return { sim, gh, ctx: engine.ctx, close };
  } catch (error) {
    await close();
    throw error;
  }
}
