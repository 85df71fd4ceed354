export {
  createDaemon,
  RUN_RETRY_AFTER_WAIT_MS,
  type Daemon,
  type DaemonEngine,
  type DaemonOptions,
  type DaemonPhase,
  type DaemonStatus,
} from "./daemon.js";
export { liveness, readiness, type Probe } from "./probes.js";
export type { PollStats } from "./poll-pace.js";
export {
  cronScheduler,
  manualScheduler,
  type ManualScheduler,
  type ScheduleHandle,
  type Scheduler,
} from "./scheduler.js";
export { metricsSources, type MetricsSourcesOptions } from "./metrics-sources.js";
