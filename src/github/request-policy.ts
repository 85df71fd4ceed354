import type { Clock, Sleep } from "../shared/clock.js";
import { classifyFailure } from "./failed-attempt.js";
import { stoppableSleep, stoppedError } from "./stop.js";

/**
 * How every GitHub request is sent: at most MAX_IN_FLIGHT at once, writes one at a time, rate
 * limits reported (and waited out when the handler says so), transient failures of idempotent
 * requests retried with back-off, creates never repeated. It waits only when there is something to
 * wait for, through the injected sleep.
 */

/** What a limit handler learns; it answers whether the request is sent again after the wait. */
export interface LimitEvent {
  kind: "secondary" | "primary";
  retryAfterSeconds: number;
  method: string;
  url: string;
  /** How many times this request was already sent again after a limit. */
  retryCount: number;
}

export interface RequestPolicyOptions {
  /** ms per second of retry-after and per unit of back-off; 1000 in production, small in tests. */
  retryAfterBaseValue: number;
  clock: Clock;
  sleep: Sleep;
  onLimit(event: LimitEvent): boolean;
  /** Told each time a request is about to be sent again (after a limit or a transient failure). */
  onRetry?: () => void;
  /** Stopping: no attempt starts and every wait ends at once, as `stopped` (github/stop.ts). */
  stop?: AbortSignal | undefined;
}

/** What the policy needs to know of a request. */
export interface PolicyRequest {
  method: string;
  url: string;
  /** Overrides how often a transient failure is retried (0: never). */
  retries?: number | undefined;
}

/** Sends one request under the policy; `attempt` sends it once (and is called again to retry). */
export type RequestPolicy = <R>(request: PolicyRequest, attempt: () => Promise<R>) => Promise<R>;

/** GitHub.com asks for no more than 100 concurrent requests; the plugin's global group allowed 10. */
const MAX_IN_FLIGHT = 10;
/** Back-off retries of a transient failure (the retry plugin's default). */
const TRANSIENT_RETRIES = 3;
/** A bound on limit retries whatever the handler says (the gateway's own handler stops at 2). */
const MAX_LIMIT_RETRIES = 10;
/** Methods sent again after a transient failure; a POST or DELETE never is (its caller looks for the marker). */
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "PATCH", "PUT"]);

/** A counting semaphore without timers: a released slot passes straight to the next waiter. */
class Gate {
  private active = 0;
  private readonly waiters: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active < this.limit) this.active++;
    else await new Promise<void>((resolve) => this.waiters.push(resolve));
    try {
      return await fn();
    } finally {
      const next = this.waiters.shift();
      if (next) next();
      else this.active--;
    }
  }
}

/** Requests that mint credentials: an App's token is fetched inside another request, so it must not queue behind it. */
function isAuthRequest(method: string, pathname: string): boolean {
  return (
    (method === "PATCH" && /^\/applications\/[^/]+\/token\/scoped$/.test(pathname)) ||
    (method === "POST" &&
      (/^\/applications\/[^/]+\/token$/.test(pathname) ||
        /^\/app\/installations\/[^/]+\/access_tokens$/.test(pathname) ||
        pathname === "/login/oauth/access_token"))
  );
}

/** One policy per gateway: every client of the pool shares its gates (no module-level state). */
export function createRequestPolicy(opts: RequestPolicyOptions): RequestPolicy {
  const inFlight = new Gate(MAX_IN_FLIGHT);
  // GitHub: "make requests for a single user or client ID serially" for content-creating requests.
  const writes = new Gate(1);

  return async (request, attempt) => {
    const method = request.method.toUpperCase();
    const { pathname } = new URL(request.url, "http://github.test");
    const isWrite = method !== "GET" && method !== "HEAD" && !isAuthRequest(method, pathname);
    const retries = request.retries ?? (IDEMPOTENT_METHODS.has(method) ? TRANSIENT_RETRIES : 0);
    const sleep = stoppableSleep(opts.sleep, opts.stop, method);
    let limitRetries = 0;
    let transientRetries = 0;
    // Bounded: limit retries stop at the handler's no (or MAX_LIMIT_RETRIES), transient ones at `retries`.
    for (;;) {
      // Checked again once a slot is free: a request that queued behind others is not sent late.
      const send = () =>
        inFlight.run(() => {
          if (opts.stop?.aborted) throw stoppedError(method);
          return attempt();
        });
      try {
        return await (isWrite ? writes.run(send) : send());
      } catch (error) {
        const verdict = classifyFailure(error, opts.clock.now());
        if (verdict.kind === "limit") {
          const again = opts.onLimit({
            kind: verdict.limit,
            retryAfterSeconds: verdict.retryAfterSeconds,
            method,
            url: request.url,
            retryCount: limitRetries,
          });
          if (!again || limitRetries >= MAX_LIMIT_RETRIES) throw error;
          limitRetries++;
          await sleep(verdict.retryAfterSeconds * opts.retryAfterBaseValue);
          opts.onRetry?.();
        } else if (verdict.kind === "transient" && transientRetries < retries) {
          transientRetries++;
          // Quadratic back-off, as the retry plugin: 1, 4, 9 units.
          await sleep(transientRetries ** 2 * opts.retryAfterBaseValue);
          opts.onRetry?.();
        } else {
          throw error;
        }
      }
    }
  };
}
