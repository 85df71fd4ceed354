export { createContext, persist, type SyncContext, type DryRunSink } from "./context.js";
export { setMeta, updateThreat, type StateCtx } from "./records/state-updates.js";
export type { StateCommit } from "./records/state-changes.js";
export { stateFromStore, persistTo } from "./records/stored-state.js";
export { runCycle, isMappingRepair, type CycleOptions, type CycleReport } from "./run/cycle.js";
export { drainQueue, type DrainOptions, type DrainResult } from "./run/drain.js";
export { summarize, formatStatus, type LockStatus } from "./status.js";
export { queueSummary, type QueueSummary } from "./plan/queue-order.js";
export { QueueClass } from "./plan/queue-class.js";
export { plan, type Action, type PlanInput } from "./plan/plan.js";
export { ACTION_KINDS } from "./actions/index.js";
export type { Policy } from "./plan/policy.js";
export {
  dryRunReads,
  summarizeDryRun,
  threatsWithIssue,
  type DryRunRecord,
  type DryRunSummary,
} from "./run/dry-run.js";
export type { NoIssueCounts } from "./plan/policy-counts.js";
export {
  countedAs,
  isWrite,
  writeSide,
  type CounterName,
  type EngineEvent,
  type EngineEventType,
  type EngineObserver,
  type WriteEvent,
} from "../shared/index.js";
export { cycleSummary, type CycleCounts } from "./event-observers.js";
export type { Known } from "./plan/known.js";
export { engineState, type EngineState, type ThreatRecords } from "./records/threat-records.js";
export { applyRetry, planRetry, type RetryPlan, type RetrySelection } from "./retry.js";
export { applyRewind, planRewind, type RewindStep } from "./rewind.js";
export {
  rewindCommand,
  stoppedStreams,
  stoppedText,
  STREAM_KINDS,
  type StreamKind,
} from "./stopped-streams.js";
export { absorbIssueNow, managesIssue } from "./intake/webhook.js";
