export * from "./schema.js";
export { StateError, LockHeldError, type StateErrorCode, type LockHolder } from "./errors.js";
export { migrate, applyMigrations, type Migration, type MigrationSet } from "./migrations.js";
export { openStateStore, type StateStore, type StateStoreOptions } from "./store.js";
export { readStateFile } from "./state-file.js";
export { acquireLock, type Lock, type AcquireLockOptions } from "./lock.js";
export { inspectLock, type LockStatus } from "./lock-inspect.js";
export { LEASE_MS, RENEW_EVERY_MS, type LockIdentity } from "./lock-judge.js";
export type { LockTimer, RenewResult } from "./lock-lease.js";
export type { LockStep } from "./lock-file.js";
export { LockInfo } from "./lock-file.js";
export { openJournaledStore } from "./journaled-open.js";
export {
  type JournaledStore,
  type JournaledStoreOptions,
  type StoreStats,
  type CompactionPhase,
} from "./journaled-store-api.js";
export type { Json } from "./journal-line.js";
export { nodeStoreFs, type StoreFs, type StoreFile } from "./store-fs.js";
export { ThreatTable, type ThreatBrief } from "./threat-table.js";
export { newRows, copyRows, type Rows } from "./rows.js";
export { isoCanonicalMs } from "./iso-ms.js";
