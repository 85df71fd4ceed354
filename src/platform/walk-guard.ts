import type { Logger } from "../observability/index.js";
import type { Clock } from "../shared/clock.js";
import { PlatformStoppedError } from "./errors.js";
import type { RequestGate } from "./request-gate.js";

/** A walk while a Retry-After holds is not started; a stop ends it quietly after the pages delivered. */

export interface WalkGuardOptions {
  path: string;
  gate: RequestGate;
  clock: Clock;
  maxRetryAfterMs: number;
  stop: AbortSignal | undefined;
  logger: Logger;
}

export async function* guardWalk<T>(pages: () => AsyncIterable<T>, opts: WalkGuardOptions): AsyncIterable<T> {
  if (opts.stop?.aborted) return;
  const openAt = opts.gate.openAt();
  if (openAt - opts.clock.now() > opts.maxRetryAfterMs) {
    opts.logger.warn(
      { path: opts.path, not_before: new Date(openAt).toISOString() },
      `the platform asked not to be called before ${new Date(openAt).toISOString()} (Retry-After); ${opts.path} is not read until then`,
    );
    return;
  }
  try {
    for await (const page of pages()) {
      yield page;
      if (opts.stop?.aborted) return;
    }
  } catch (err) {
    if (err instanceof PlatformStoppedError || opts.stop?.aborted) return;
    throw err;
  }
}
