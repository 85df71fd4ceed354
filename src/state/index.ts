export { StateError } from "./errors.js";
export { acquireLock, type Lock, type LockStep, type LockTimer } from "./lock.js";
export { inspectLock, LEASE_MS, LockHeldError, RENEW_EVERY_MS } from "./lock-judge.js";
export { openStateStore, databasePathOf, type StateStore } from "./store.js";
export type { Json } from "./database.js";
export { ThreatQueries, type IssueRef, type SliceSteps, type SliceTime } from "./threat-queries.js";
