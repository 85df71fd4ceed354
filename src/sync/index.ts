export { createContext, persist, type SyncContext, type SyncDeps, type DryRunSink } from "./context.js";
export { setMeta } from "./state-updates.js";
export type { StateCommit } from "./state-changes.js";
export { stateFromStore, commitToStore, persistTo, readJournaledState } from "./journaled-state.js";
export { runCycle, isMappingRepair, type CycleOptions, type CycleReport } from "./cycle.js";
export { absorbIssueNow } from "./intake-github.js";
export { drainQueue, type DrainOptions, type DrainResult } from "./drain.js";
export { summarize, formatStatus, type LockStatus, type StatusReport } from "./status.js";
export { queueSummary, type QueueSummary } from "./queue.js";
export { plan, type Action, type PlanInput } from "./plan.js";
export { priorityOf } from "./actions/index.js";
export { policyFromConfig, type Policy } from "./policy.js";
export {
  dryRunReads,
  summarizeDryRun,
  threatsWithIssue,
  type DryRunReads,
  type DryRunRecord,
  type DryRunSummary,
} from "./dry-run.js";
export type { NoIssueCounts } from "./policy-counts.js";
export {
  countedAs,
  isWrite,
  type CounterName,
  type EngineEvent,
  type EngineEventType,
  type EngineObserver,
  type WriteEvent,
} from "../shared/index.js";
export { cycleSummary, type CycleCounts } from "./event-observers.js";
export type { Known } from "./known.js";
export { engineState, ThreatRecordsView, type EngineState, type ThreatRecords } from "./threat-records.js";
