import { createAppAuth } from "@octokit/auth-app";
import { Octokit } from "@octokit/rest";
import type { Logger } from "../observability/logger.js";
import { createRequestTally, type RequestTally } from "../shared/request-tally.js";
import type { RequestPolicy } from "./request-policy.js";

/** REST only; rate limits and retries are the request policy's (request-policy.ts). */
export type GitHubOctokit = Octokit;

/** The REST API version the connector is written against (sent on every request). */
const API_VERSION = "2022-11-28";

export type OctokitAuth =
  | { kind: "token"; token: string }
  | { kind: "app"; appId: string | number; privateKey: string; installationId?: number };

interface OctokitFactoryOptions {
  baseUrl: string;
  userAgent: string;
  auth: OctokitAuth;
  fetch: typeof fetch;
  logger: Logger;
  /** Shared by every client of one gateway, so that its gates hold across installations. */
  policy: RequestPolicy;
}

/** Octokit's log, narrowed to messages: its debug output carries request options (headers). */
function octokitLog(logger: Logger): {
  debug(): void;
  info(m: unknown): void;
  warn(m: unknown): void;
  error(m: unknown): void;
} {
  const text = (message: unknown): string => (typeof message === "string" ? message : "octokit message");
  return {
    debug: () => undefined,
    info: (message) => logger.debug(text(message)),
    warn: (message) => logger.warn(text(message)),
    // The request-log plugin reports every 404 and 304 as an error; the gateway decides what is one.
    error: (message) => logger.debug(text(message)),
  };
}

export function createOctokit(opts: OctokitFactoryOptions): GitHubOctokit {
  const authOptions =
    opts.auth.kind === "token"
      ? { auth: opts.auth.token }
      : {
          authStrategy: createAppAuth,
          auth: {
            appId: opts.auth.appId,
            privateKey: opts.auth.privateKey,
            ...(opts.auth.installationId === undefined ? {} : { installationId: opts.auth.installationId }),
          },
        };
  const octokit = new Octokit({
    ...authOptions,
    baseUrl: opts.baseUrl,
    userAgent: opts.userAgent,
    log: octokitLog(opts.logger),
    request: { fetch: opts.fetch },
  });
  octokit.hook.before("request", (options) => {
    options.headers["x-github-api-version"] = API_VERSION;
  });
  // Registered after the auth hook, so it wraps it: a retried attempt is authenticated afresh.
  octokit.hook.wrap("request", (request, options) => {
    const retries: unknown = options.request.retries;
    return opts.policy(
      {
        method: options.method,
        url: options.url,
        retries: typeof retries === "number" ? retries : undefined,
      },
      async () => request(options),
    );
  });
  return octokit;
}

/** Counters kept per attempt, so retries and conditional answers are counted as GitHub sees them. */
export interface TransportStats {
  requests: number;
  rateLimitPoints: number;
  notModified: number;
}

/** The fetch Octokit uses: bounds and counts each attempt; `cut` ends every attempt in flight. */
export function instrumentedFetch(
  base: typeof fetch,
  stats: TransportStats,
  timeoutMs: number,
  tally: RequestTally = createRequestTally(),
  cut?: AbortSignal,
): typeof fetch {
  const live = new Set<AbortController>();
  cut?.addEventListener(
    "abort",
    () => {
      for (const attempt of live) attempt.abort(cut.reason);
    },
    { once: true },
  );
  return async (input, init) => {
    stats.requests++;
    const method = init?.method ?? (input instanceof Request ? input.method : "GET");
    const attempt = new AbortController();
    if (cut?.aborted) attempt.abort(cut.reason);
    live.add(attempt);
    const timer = setTimeout(() => {
      live.delete(attempt);
      const error = new Error(`no complete answer within ${timeoutMs} ms`);
      error.name = "TimeoutError";
      attempt.abort(error);
    }, timeoutMs);
    // The timer alone must not keep a finished process alive.
    timer.unref();
    const signal = init?.signal ? AbortSignal.any([init.signal, attempt.signal]) : attempt.signal;
    let response: Response;
    try {
      response = await base(input, { ...init, signal });
    } catch (error) {
      tally.record(method, "error");
      throw error;
    }
    tally.record(method, response.status);
    if (response.status === 304) stats.notModified++;
    else stats.rateLimitPoints++;
    return response;
  };
}
