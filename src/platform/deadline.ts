/**
 * A total deadline for one HTTP attempt. Timeouts between bytes would let a body trickled a byte
 * a second go on for ever; this signal bounds headers and body together, and also fires when the
 * process stops.
 */

export interface AttemptSignal {
  signal: AbortSignal;
  /** The deadline fired (not the stop). */
  timedOut(): boolean;
  /** Clears the timer and the stop listener; call when the attempt is over. */
  done(): void;
}

export function attemptSignal(timeoutMs: number, stop: AbortSignal | undefined): AttemptSignal {
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
  const onStop = (): void => controller.abort(stop?.reason);
  if (stop?.aborted) onStop();
  else stop?.addEventListener("abort", onStop, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    done: () => {
      clearTimeout(timer);
      stop?.removeEventListener("abort", onStop);
    },
  };
}
