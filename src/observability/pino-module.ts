import { createRequire } from "node:module";
import type * as PinoModule from "pino";

/**
 * pino, loaded on the first logger made or error serialized, not when this module is imported:
 * its files (and the worker threads' and streams' modules they pull in) take 20 ms and more to
 * load, and `status`, whose imports reach the logger through the features' registry, logs nothing.
 * It is a CommonJS package (external to the bundle, scripts/bundle-cli.mjs), so a synchronous
 * require serves every caller as the static import did.
 */
let loaded: typeof PinoModule | undefined;

export function pinoModule(): typeof PinoModule {
  return (loaded ??= createRequire(import.meta.url)("pino") as typeof PinoModule);
}
