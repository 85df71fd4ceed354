import { startGitHubStandIn, type RunningStandIn } from "../github-stand-in/index.js";
import { startSimulator } from "../simulator/index.js";
import type { Io } from "./io.js";
import { intOption, parse } from "./usage.js";

/** Where `simulate --with-github` serves the stand-in, and the token it accepts: config/threatbridge.yaml's defaults. */
export const STAND_IN_PORT = 8081;
/** The simulator's default port: config/threatbridge.yaml's default base_url. */
export const SIMULATOR_PORT = 8080;
export const STAND_IN_TOKEN = "ghp_standin";

/** Resolves on the first SIGINT or SIGTERM. */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const done = (signal: NodeJS.Signals): void => {
      process.off("SIGINT", done);
      process.off("SIGTERM", done);
      resolve(signal);
    };
    process.on("SIGINT", done);
    process.on("SIGTERM", done);
  });
}

/** `simulate`: serve the platform simulator (and with --with-github the GitHub stand-in) until stopped (exit 0 on a signal). */
export async function simulateCommand(args: string[], io: Io): Promise<number> {
  const o = parse(args, {
    host: { type: "string", default: "127.0.0.1" },
    port: { type: "string", default: String(SIMULATOR_PORT) },
    seed: { type: "string" },
    assets: { type: "string" },
    threats: { type: "string" },
    "client-id": { type: "string" },
    "client-secret": { type: "string" },
    "read-only-client-id": { type: "string" },
    "read-only-client-secret": { type: "string" },
    "token-ttl": { type: "string" },
    "with-github": { type: "boolean", default: false },
    "github-port": { type: "string", default: String(STAND_IN_PORT) },
    "github-token": { type: "string", default: STAND_IN_TOKEN },
  });
  // The simulator takes `undefined` as "the default" for every option.
  const running = await startSimulator({
    host: o.host,
    port: intOption(o.port, "port", 0, 65535) ?? SIMULATOR_PORT,
    seed: intOption(o.seed, "seed", 0, 2 ** 31),
    assets: intOption(o.assets, "assets", 0, 1_000_000),
    threats: intOption(o.threats, "threats", 0, 1_000_000),
    clientId: o["client-id"],
    clientSecret: o["client-secret"],
    readOnlyClientId: o["read-only-client-id"],
    readOnlyClientSecret: o["read-only-client-secret"],
    tokenTtlSeconds: intOption(o["token-ttl"], "token-ttl", 1, 86_400),
  });
  io.out(`platform simulator on ${running.url} (token endpoint ${running.url}/oauth/token); Ctrl-C stops it`);
  let github: RunningStandIn | null = null;
  try {
    if (o["with-github"] === true) {
      // The stand-in has its own port, so the two never share a URL space (config: api_url).
      github = await startGitHubStandIn({
        host: o.host,
        port: intOption(o["github-port"], "github-port", 0, 65535) ?? STAND_IN_PORT,
        tokens: [o["github-token"]],
      });
      io.out(
        `GitHub stand-in on ${github.url} (token ${o["github-token"]}); issues live in memory until stopped`,
      );
    }
    await untilSignal();
  } finally {
    await github?.close();
    await running.close();
  }
  return 0;
}
