import { startGitHubStandIn, type RunningStandIn } from "../github-stand-in/index.js";
import { startSimulator } from "../simulator/index.js";
import type { Io } from "./io.js";
import { SIMULATE, SIMULATOR_PORT, STAND_IN_PORT } from "./command-specs.js";
import { intOption, parseCommand } from "./usage.js";

export { SIMULATOR_PORT, STAND_IN_PORT, STAND_IN_TOKEN } from "./command-specs.js";

/** Resolves on the first SIGINT or SIGTERM. */
function untilSignal(): Promise<NodeJS.Signals> {
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
  const o = parseCommand(SIMULATE, args);
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
