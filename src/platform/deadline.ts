/**
 * A total deadline for one HTTP attempt (issue 6, item 5). undici's `headersTimeout` and
 * `bodyTimeout` bound the gaps between bytes, so a body trickled a byte a second never ends;
 * this signal bounds headers and body together, and also fires when the process stops.
 */

export interface AttemptSignal {
  signal: AbortSignal;
  /** The deadline fired (not the stop). */
  timedOut(): boolean;
  /** Clears the timer; call when the attempt is over. */
  done(): void;
}

export function attemptSignal(timeoutMs: number, stop: AbortSignal | undefined): AttemptSignal {
  const deadline = new AbortController();
  const timer = setTimeout(() => {
    const error = new Error(`no complete answer within ${timeoutMs} ms`);
    error.name = "TimeoutError";
    deadline.abort(error);
  }, timeoutMs);
  // The timer alone must not keep a finished process alive.
  timer.unref();
  return {
    signal: stop === undefined ? deadline.signal : AbortSignal.any([deadline.signal, stop]),
    timedOut: () => deadline.signal.aborted,
    done: () => clearTimeout(timer),
  };
}
