/** A total deadline for one HTTP attempt, headers and body together (no byte-a-second trickle), ended by a stop too. */

export interface AttemptSignal {
  signal: AbortSignal;
  /** The deadline fired (not the stop). */
  timedOut(): boolean;
  /** Clears the timer and the stop listener; call when the attempt is over. */
  done(): void;
}

/** How long a write in flight may take once the process stops, within the contract's 5 s for `run`. */
export const IN_FLIGHT_WRITE_GRACE_MS = 3_000;

export function attemptSignal(timeoutMs: number, stop: AbortSignal | undefined, graceMs = 0): AttemptSignal {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    const error = new Error(`no complete answer within ${timeoutMs} ms`);
    error.name = "TimeoutError";
    controller.abort(error);
  }, timeoutMs);
  // The timer alone must not keep a finished process alive.
  timer.unref();
  // A listener removed in done(): the stop signal lives as long as the process.
  let grace: NodeJS.Timeout | undefined;
  const onStop = (): void => {
    if (graceMs <= 0) {
      controller.abort(stop?.reason);
      return;
    }
    grace = setTimeout(() => controller.abort(stop?.reason), graceMs);
    grace.unref();
  };
  // Stopping already: the attempt is not sent at all.
  if (stop?.aborted) controller.abort(stop.reason);
  else stop?.addEventListener("abort", onStop, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    done: () => {
      clearTimeout(timer);
      clearTimeout(grace);
      stop?.removeEventListener("abort", onStop);
    },
  };
}
