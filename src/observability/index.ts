export { chooseLogFormat, createLogger, silentLogger, type Logger } from "./logger.js";
// The metrics (prom-client) are only `run`'s: they are imported from ./metrics.js, so that `sync`,
// `status` and the other commands do not load prom-client (a large share of a short command's memory).
export type { MetricsSources, QueueView } from "./metrics.js";
export type { OperationsMetrics, WebhookOutcome, WebhookRejection } from "./operations-metrics.js";
export {
  startHealthServer,
  HealthServerError,
  MAX_CONNECTIONS,
  REQUEST_TIMEOUT_MS,
  type HealthServerOptions,
  type ProbeResult,
  type RouteHandler,
  type RunningHealthServer,
} from "./health-server.js";
export { createSecretRegistry, type SecretRegistry } from "./secrets.js";
export {
  drainMs,
  drainSeconds,
  drainView,
  formatDuration,
  budgetText,
  formatCount,
  formatEta,
  formatWhen,
  queuedText,
  limitsOnly,
  writesPerMinute,
  type BudgetLimits,
  type DrainView,
} from "./eta.js";
export { rateLimitRecorder, type RateLimitSeen } from "./rate-limit-seen.js";
export {
  drainProgress,
  progressLine,
  progressTally,
  realTicker,
  startTerminalProgress,
  type ProgressSample,
  type ProgressTally,
  type Ticker,
} from "./progress.js";
