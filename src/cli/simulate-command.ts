import { startGitHubStandIn, type RunningStandIn } from "../github-stand-in/index.js";
import { startSimulator, type RunningSimulator } from "../simulator/index.js";
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

/** A port that could not be bound: which server's, and the flag that changes it. */
function bindFailure(
  error: unknown,
  port: number,
  host: string,
  whose: string,
  flag: string,
): string | undefined {
  const code = error instanceof Error && "code" in error ? error.code : undefined;
  const why =
    code === "EADDRINUSE" ? "is in use" : code === "EACCES" ? "is not allowed to this user" : undefined;
  if (why === undefined) return undefined;
  return `threatbridge simulate: port ${port} on ${host} ${why} (the ${whose}'s); choose another with ${flag} N (0 picks a free one)`;
}

/**
 * `simulate`: serve the platform simulator (and with --with-github the GitHub stand-in) until
 * stopped (exit 0 on a signal). Both ports are bound before anything is printed: a port that
 * cannot be bound is exit 2 naming the flag that changes it, with nothing left serving.
 */
export async function simulateCommand(args: string[], io: Io): Promise<number> {
  const o = parseCommand(SIMULATE, args);
  const port = intOption(o.port, "port", 0, 65535) ?? SIMULATOR_PORT;
  const githubPort = intOption(o["github-port"], "github-port", 0, 65535) ?? STAND_IN_PORT;
  const options = {
    host: o.host,
    port,
    seed: intOption(o.seed, "seed", 0, 2 ** 31),
    assets: intOption(o.assets, "assets", 0, 1_000_000),
    threats: intOption(o.threats, "threats", 0, 1_000_000),
    clientId: o["client-id"],
    clientSecret: o["client-secret"],
    readOnlyClientId: o["read-only-client-id"],
    readOnlyClientSecret: o["read-only-client-secret"],
    tokenTtlSeconds: intOption(o["token-ttl"], "token-ttl", 1, 86_400),
  };
  let running: RunningSimulator;
  try {
    running = await startSimulator(options);
  } catch (error) {
    const failure = bindFailure(error, port, o.host, "platform simulator", "--port");
    if (failure === undefined) throw error;
    io.err(failure);
    return 2;
  }
  let github: RunningStandIn | null = null;
  try {
    if (o["with-github"] === true) {
      try {
        // The stand-in has its own port, so the two never share a URL space (config: api_url).
        github = await startGitHubStandIn({ host: o.host, port: githubPort, tokens: [o["github-token"]] });
      } catch (error) {
        const failure = bindFailure(error, githubPort, o.host, "GitHub stand-in", "--github-port");
        if (failure === undefined) throw error;
        io.err(failure);
        return 2;
      }
    }
    // Listening for the signal before the banner: whoever reads the banner may stop it at once.
    const stopped = untilSignal();
    io.out(
      `platform simulator on ${running.url} (token endpoint ${running.url}/oauth/token; ` +
        `client id ${o["client-id"]}, secret ${o["client-secret"]}; read only: ${o["read-only-client-id"]}, ` +
        `${o["read-only-client-secret"]})`,
    );
    if (github !== null)
      io.out(
        `GitHub stand-in on ${github.url} (token ${o["github-token"]}); a person closes, reopens, comments and ` +
          `assigns through ${github.url}/_sim/repos/OWNER/NAME/issues/N/... (README, "Try it locally")`,
      );
    io.out(
      `${github === null ? "it serves" : "both serve"} from memory until stopped; Ctrl-C stops ${github === null ? "it" : "both"}`,
    );
    await stopped;
  } finally {
    await github?.close();
    await running.close();
  }
  return 0;
}
