import { startSimulator } from "../simulator/index.js";
import type { Io } from "./io.js";
import { intOption, parse } from "./usage.js";

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

/** `simulate`: serve the platform simulator until stopped (exit 0 on a signal). */
export async function simulateCommand(args: string[], io: Io): Promise<number> {
  const o = parse(args, {
    host: { type: "string", default: "127.0.0.1" },
    port: { type: "string", default: "8080" },
    seed: { type: "string" },
    assets: { type: "string" },
    threats: { type: "string" },
    "client-id": { type: "string" },
    "client-secret": { type: "string" },
    "read-only-client-id": { type: "string" },
    "read-only-client-secret": { type: "string" },
    "token-ttl": { type: "string" },
  });
  // The simulator takes `undefined` as "the default" for every option.
  const running = await startSimulator({
    host: o.host,
    port: intOption(o.port, "port", 0, 65535) ?? 8080,
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
  await untilSignal();
  await running.close();
  return 0;
}
