export * from "./schema.js";
export { StateError, LockHeldError } from "./errors.js";
export { acquireLock, type Lock } from "./lock.js";
export { inspectLock, type LockStatus } from "./lock-inspect.js";
export { LEASE_MS, RENEW_EVERY_MS, type LockIdentity } from "./lock-judge.js";
export type { LockTimer, RenewResult } from "./lock-lease.js";
export type { LockStep } from "./lock-file.js";
export { LockInfo } from "./lock-file.js";
export {
  openStateStore,
  databasePathOf,
  CURSOR_KEYS,
  type StateStore,
  type StateStoreOptions,
} from "./store.js";
export type { Json } from "./database.js";
export { ThreatQueries, type SliceTime } from "./threat-queries.js";
export { TAG_COUNT, tagOf, type SliceTagger } from "./slice-tags.js";
export { isoCanonicalMs } from "./iso-ms.js";
