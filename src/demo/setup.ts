import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigSchema, type Config } from "../config/index.js";
import type { GitHubGateway } from "../github/index.js";
import { startGitHubStandIn, type RunningStandIn } from "../github-stand-in/index.js";
import type { Logger } from "../observability/index.js";
import type { PlatformClient } from "../platform/index.js";
import { systemClock } from "../shared/clock.js";
import { startSimulator, type RunningSimulator } from "../simulator/index.js";
import { openJournaledStore } from "../state/index.js";
import { createContext, persistTo, stateFromStore, type SyncContext } from "../sync/index.js";

/**
 * The demo's world, all on 127.0.0.1 and in this process: a small seeded platform simulator, the
 * GitHub stand-in, and the connector over a temp state file that is removed at the end.
 */

export const DEMO_REPO = "acme/security-threats";
const DEMO_TOKEN = "ghp_demo_token_not_a_secret";
const CLIENT_ID = "threatbridge-demo";
const CLIENT_SECRET = "threatbridge-demo-secret";

export interface DemoConnector {
  platform: PlatformClient;
  github: GitHubGateway;
  close(): Promise<void>;
}

/** Builds the real connector from a config (the CLI's wiring), so that the demo runs what `run` runs. */
export type BuildConnector = (config: Config, logger: Logger) => DemoConnector;

export interface DemoWorld {
  sim: RunningSimulator;
  gh: RunningStandIn;
  ctx: SyncContext;
  close(): Promise<void>;
}

export interface DemoWorldOptions {
  buildConnector: BuildConnector;
  logger: Logger;
  seed: number;
  threats: number;
  assets: number;
  /** Where the temp state directory goes (default: the OS temp directory). */
  tmpRoot?: string;
}

function demoConfig(sim: RunningSimulator, gh: RunningStandIn, statePath: string): Config {
  return ConfigSchema.parse({
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
    });
    cleanups.push(() => sim.close());
    const gh = await startGitHubStandIn({ host: "127.0.0.1", port: 0, tokens: [DEMO_TOKEN] });
    cleanups.push(() => gh.close());
    const dir = await mkdtemp(join(opts.tmpRoot ?? tmpdir(), "threatbridge-demo-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const config = demoConfig(sim, gh, join(dir, "state.json"));
    const connector = opts.buildConnector(config, opts.logger);
    cleanups.push(() => connector.close());
    const store = await openJournaledStore(config.state.path, { logger: opts.logger });
    cleanups.push(() => store.close());
    const ctx = createContext(
      {
        config,
        platform: connector.platform,
        github: connector.github,
        logger: opts.logger,
        clock: systemClock,
        persist: persistTo(store),
      },
      stateFromStore(store),
    );
    return { sim, gh, ctx, close };
  } catch (error) {
    await close();
    throw error;
  }
}
