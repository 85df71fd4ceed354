import { createAppAuth } from "@octokit/auth-app";
import { retry } from "@octokit/plugin-retry";
import { throttling } from "@octokit/plugin-throttling";
import { Octokit } from "@octokit/rest";
import Bottleneck from "bottleneck";
import type { Logger } from "../observability/index.js";

/** REST only, with GitHub's own throttling and retry plugins. */
const ThrottledOctokit = Octokit.plugin(throttling, retry);
export type GitHubOctokit = InstanceType<typeof ThrottledOctokit>;

/** The REST API version the connector is written against (sent on every request). */
export const API_VERSION = "2022-11-28";

/** Methods the retry plugin may repeat: sending them twice leaves GitHub as sending them once. */
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "PATCH", "PUT"]);

export type OctokitAuth =
  | { kind: "token"; token: string }
  | { kind: "app"; appId: string | number; privateKey: string; installationId?: number };

/** What a limit handler learns; it answers whether the throttling plugin may retry. */
export interface LimitEvent {
  kind: "secondary" | "primary";
  retryAfterSeconds: number;
  method: string;
  url: string;
  retryCount: number;
}

export interface OctokitFactoryOptions {
  baseUrl: string;
  userAgent: string;
  auth: OctokitAuth;
  fetch: typeof fetch;
  logger: Logger;
  /** ms per second of retry-after and of retry backoff; 1000 in production, small in tests. */
  retryAfterBaseValue: number;
  /** Throttling id: keeps one gateway's queues apart from another's in the same process. */
  id: string;
  onLimit(event: LimitEvent): boolean;
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
  const octokit = new ThrottledOctokit({
    ...authOptions,
    baseUrl: opts.baseUrl,
    userAgent: opts.userAgent,
    log: octokitLog(opts.logger),
    request: { fetch: opts.fetch },
    throttle: {
      id: opts.id,
      retryAfterBaseValue: opts.retryAfterBaseValue,
      // Writes are paced by the WriteBudget; these groups only keep them one at a time
      // (GitHub: "make requests serially"). The plugin's default groups are shared by every
      // client in the process and add their own 1 s / 3 s spacing on top of the budget.
      write: new Bottleneck.Group({ maxConcurrent: 1, minTime: 0 }),
      notifications: new Bottleneck.Group({ maxConcurrent: 1, minTime: 0 }),
      onSecondaryRateLimit: (retryAfter, options, _octokit, retryCount) =>
        opts.onLimit({
          kind: "secondary",
          retryAfterSeconds: retryAfter,
          method: options.method,
          url: options.url,
          retryCount,
        }),
      onRateLimit: (retryAfter, options, _octokit, retryCount) =>
        opts.onLimit({
          kind: "primary",
          retryAfterSeconds: retryAfter,
          method: options.method,
          url: options.url,
          retryCount,
        }),
    },
    retry: {
      retryAfterBaseValue: opts.retryAfterBaseValue,
      retries: 3,
      // 403 and 429 are rate limits: the throttling plugin's handlers decide about those.
      doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451],
    },
  });
  octokit.hook.before("request", (options) => {
    options.headers["x-github-api-version"] = API_VERSION;
    // A POST (a create) or DELETE is never repeated blindly: its caller resolves an unknown
    // outcome by looking (for the marker), so the retry plugin must not send it again.
    if (!IDEMPOTENT_METHODS.has(options.method)) {
      options.request = { ...options.request, retries: 0 };
    }
  });
  return octokit;
}

/** Counters kept per attempt, so retries and conditional answers are counted as GitHub sees them. */
export interface TransportStats {
  requests: number;
  rateLimitPoints: number;
  notModified: number;
}

/**
 * The fetch Octokit uses: bounds each attempt in time and counts it. A 304 answer to a
 * conditional request costs no rate-limit point (REST docs, "Use conditional requests").
 */
export function instrumentedFetch(
  base: typeof fetch,
  stats: TransportStats,
  timeoutMs: number,
): typeof fetch {
  return async (input, init) => {
    stats.requests++;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    const response = await base(input, { ...init, signal });
    if (response.status === 304) stats.notModified++;
    else stats.rateLimitPoints++;
    return response;
  };
}
