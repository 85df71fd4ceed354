import { pino, type DestinationStream } from "pino";
import type { Config } from "../config/index.js";
import {
  createGitHub,
  type GitHubConversation,
  type GitHubGateway,
  type GitHubWorkflow,
} from "../github/index.js";
import {
  chooseLogFormat,
  createLogger,
  createSecretRegistry,
  rateLimitRecorder,
  type Logger,
  type RateLimitSeen,
  type SecretRegistry,
} from "../observability/index.js";
import { createPlatformClient, type PlatformClient } from "../platform/index.js";
import { systemClock, type Clock, type Sleep } from "../shared/clock.js";
import type { Env } from "./io.js";

/** Builds the connector's parts from a validated config: the one place that knows them all. */

/** The process's credentials from the config; tokens issued later are added as they come. */
export function secretsOf(config: Config | null): SecretRegistry {
  return createSecretRegistry([
    config?.platform.client_secret,
    config?.github.token,
    config?.github.app?.private_key,
    config?.github.webhook?.secret,
    ...(config?.github.webhook?.previous_secrets ?? []),
  ]);
}

/**
 * The command's logger, on stderr (stdout carries dry-run lines and --json output), or on
 * `destination`: the terminal writer that keeps records off `sync`'s progress line.
 */
export function cliLogger(
  config: Config | null,
  env: Env,
  secrets: SecretRegistry = secretsOf(config),
  isTerminal = process.stderr.isTTY,
  destination?: DestinationStream,
): Logger {
  const level = env["THREATBRIDGE_LOG_LEVEL"] ?? config?.log.level ?? "info";
  const format = chooseLogFormat(config?.log.format, isTerminal);
  const out = destination ?? pino.destination({ fd: 2, sync: true });
  if (format === "pretty")
    return createLogger({ level, format, colorize: isTerminal, secrets, destination: out });
  return createLogger({ level, destination: out, secrets });
}

export interface Connector {
  platform: PlatformClient;
  github: GitHubGateway;
  /** GitHub's sub-issues and milestones (groups, SLA milestones): the same client as `github`. */
  workflow: GitHubWorkflow;
  /** Projects and people's comments (the conversation back's features): the same client again. */
  conversation: GitHubConversation;
  /** GitHub's rate limit as its last answer showed it (for `status`). */
  rateLimitSeen(): RateLimitSeen | null;
  close(): Promise<void>;
}

export interface ConnectorOptions {
  clock?: Clock;
  secrets?: SecretRegistry;
  /**
   * Stopping (SIGTERM/SIGINT): abandons the platform request in flight, ends both sides' waits, and
   * bounds GitHub's request in flight.
   */
  stop?: AbortSignal;
  /** The state's `platformNotBefore`: the platform client honours it. */
  notBefore?: number;
  /** Told of a new Retry-After, to keep it in the state. */
  onNotBefore?: (at: number) => void;
  /** Every wait of the platform's retries and of GitHub's pacing and retries (default real timers). */
  sleep?: Sleep;
  /**
   * The longest Retry-After the platform client waits out inside a request; a longer one ends the
   * request at once (the client's default: 120 s; `run` waits less, and goes on with other work).
   */
  maxRetryAfterMs?: number;
}

/** Where the platform is and who the connector is to it: shared by the connector and `check`. */
export function platformEndpoint(config: Config) {
  return {
    baseUrl: config.platform.base_url,
    tokenUrl: config.platform.token_url,
    clientId: config.platform.client_id,
    clientSecret: config.platform.client_secret,
    tokenAuth: config.platform.token_auth,
    ...(config.platform.scope !== undefined ? { scope: config.platform.scope } : {}),
    ...(config.platform.audience !== undefined ? { audience: config.platform.audience } : {}),
  };
}

/** The GitHub credentials of the config: a GitHub App's, or a token. */
export function githubAuth(config: Config) {
  const app = config.github.app;
  return app
    ? {
        appId: app.app_id,
        privateKey: app.private_key,
        ...(app.installation_id !== undefined ? { installationId: app.installation_id } : {}),
      }
    : { token: config.github.token ?? "" };
}

export function buildConnector(config: Config, logger: Logger, opts: ConnectorOptions = {}): Connector {
  const clock = opts.clock ?? systemClock;
  const platform = createPlatformClient({
    ...platformEndpoint(config),
    pageLimit: config.platform.page_limit,
    timeoutMs: config.platform.timeout_ms,
    logger,
    clock,
    secrets: opts.secrets,
    stop: opts.stop,
    notBefore: opts.notBefore,
    onNotBefore: opts.onNotBefore,
    sleep: opts.sleep,
    maxRetryAfterMs: opts.maxRetryAfterMs,
  });
  const seen = rateLimitRecorder(globalThis.fetch, () => clock.now());
  const github = createGitHub({
    request: { fetch: seen.fetch },
    apiUrl: config.github.api_url,
    auth: githubAuth(config),
    writeBudget: {
      perMinute: config.github.write_budget.per_minute,
      perHour: config.github.write_budget.per_hour,
      minIntervalMs: config.github.write_budget.min_interval_ms,
    },
    managedLabel: config.github.managed_label,
    issueType: config.github.issue_type,
    logger,
    clock,
    stop: opts.stop,
    ...(opts.sleep === undefined ? {} : { sleep: opts.sleep }),
  });
  return {
    platform,
    github,
    workflow: github,
    conversation: github,
    rateLimitSeen: seen.seen,
    close: () => platform.close(),
  };
}
