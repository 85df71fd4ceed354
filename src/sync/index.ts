export { createContext, type SyncContext, type SyncDeps, type DryRunSink } from "./context.js";
export { runCycle, isMappingRepair, type CycleOptions, type CycleReport } from "./cycle.js";
export { drainQueue, type DrainOptions, type DrainResult } from "./drain.js";
export { summarize, formatStatus, type LockStatus, type StatusReport } from "./status.js";
export { queueSummary, type QueueSummary } from "./queue.js";
export { plan, priorityOf, type Action, type PlanInput } from "./plan.js";
export { policyFromConfig, type Policy } from "./policy.js";
export { summarizeDryRun, threatsWithIssue, type DryRunRecord, type DryRunSummary } from "./dry-run.js";
export type { NoIssueCounts } from "./policy-counts.js";
