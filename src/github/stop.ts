import type { Sleep } from "../shared/clock.js";
import { GitHubError } from "./errors.js";

/**
 * What a stop (SIGTERM/SIGINT, a lost lock) does to GitHub requests (contract, `run`: exit within
 * 5 s whatever GitHub is doing). A wait (back-off, rate limit, write budget) ends at once and no
 * new attempt starts: the request ends as `stopped`, which is neither a refusal nor a lost write,
 * so its work stays queued and its intent stays for the next start to resolve. A request already
 * in flight gets IN_FLIGHT_GRACE_MS to be answered, then is cut: a create cut so is an unknown
 * outcome, resolved on restart by looking for its marker.
 */

/** Leaves the stop the rest of its 5 s for the state's last write and the process's exit. */
export const IN_FLIGHT_GRACE_MS = 3_000;

export function stoppedError(method: string): GitHubError {
  return new GitHubError("stopped", `GitHub ${method} request not sent: stopping (it stays queued)`);
}

/**
 * A sleep that a stop ends early with `stopped`; other aborts pass through unchanged. Listeners
 * added and removed per wait rather than AbortSignal.any: the stop lives as long as the process
 * and must not collect one dependent signal per wait.
 */
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
