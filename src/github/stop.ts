import type { Sleep } from "../shared/clock.js";
import { GitHubError } from "./errors.js";

/**
 * What a stop does to GitHub requests (contract, `run`: exit within 5 s): a wait ends at once and
 * no attempt starts (`stopped`: the work stays queued); one in flight gets IN_FLIGHT_GRACE_MS, then
 * is cut, and a cut create is an unknown outcome resolved by its marker.
 */

/** Leaves the stop the rest of its 5 s for the state's last write and the process's exit. */
export const IN_FLIGHT_GRACE_MS = 3_000;

export function stoppedError(method: string): GitHubError {
  return new GitHubError("stopped", `GitHub ${method} request not sent: stopping (it stays queued)`);
}

/** A sleep a stop ends early with `stopped`; listeners per wait, so the stop collects no signals. */
export function stoppableSleep(sleep: Sleep, stop: AbortSignal | undefined, method = "write"): Sleep {
  if (stop === undefined) return sleep;
  return async (ms, signal) => {
    if (stop.aborted) throw stoppedError(method);
    const wait = new AbortController();
    const onStop = (): void => wait.abort(stop.reason);
    const onSignal = (): void => wait.abort(signal?.reason);
    stop.addEventListener("abort", onStop, { once: true });
    if (signal?.aborted) onSignal();
    else signal?.addEventListener("abort", onSignal, { once: true });
    try {
      await sleep(ms, wait.signal);
    } catch (error) {
      if (stop.aborted) throw stoppedError(method);
      throw error;
    } finally {
      stop.removeEventListener("abort", onStop);
      signal?.removeEventListener("abort", onSignal);
    }
  };
}

/** Fires `graceMs` after `stop` does (the bound of a request in flight once stopping). */
export function afterGrace(stop: AbortSignal, graceMs: number): AbortSignal {
  const cut = new AbortController();
  const fire = (): void => {
    // Unref'd: a process that finished everything exits without waiting for the grace to end.
    setTimeout(() => cut.abort(new Error("stopping: the request in flight took too long")), graceMs).unref();
  };
  if (stop.aborted) fire();
  else stop.addEventListener("abort", fire, { once: true });
  return cut.signal;
}
