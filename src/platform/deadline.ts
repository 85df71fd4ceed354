/**
 * A total deadline for one HTTP attempt. Timeouts between bytes would let a body trickled a byte
 * a second go on for ever; this signal bounds headers and body together, and also fires when the
 * process stops (for a write in flight, once its grace has passed).
 */

export interface AttemptSignal {
  signal: AbortSignal;
  /** The deadline fired (not the stop). */
  timedOut(): boolean;
  /** Clears the timer and the stop listener; call when the attempt is over. */
  done(): void;
}

/**
 * How long a write in flight may still take once the process stops (contract, `run`: SIGTERM
 * finishes the write in flight; it leaves the stop the rest of its 5 s to save the state and exit,
 * as GitHub's writes get). A read in flight is abandoned at once; no attempt starts after a stop.
 */
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
  // A listener removed in done(), rather than AbortSignal.any: the stop signal lives as long as
  // the process and must not collect one dependent per request.
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
