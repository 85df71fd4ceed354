export {
  createPlatformClient,
  type PlatformClient,
  type PlatformClientOptions,
  type PlatformStats,
} from "./client.js";
export type { ParsedItem, StreamPage, UnchangedTest } from "./stream.js";
export type { TokenAuth } from "./token-cache.js";
export {
  Asset,
  ExternalReference,
  GITHUB_SYSTEM,
  Problem,
  SETTABLE_STATUSES,
  SettableStatus,
  THREAT_STATUSES,
  Threat,
  isKnownThreatStatus,
  type KnownThreatStatus,
} from "./schemas.js";
export {
  PlatformError,
  PlatformNetworkError,
  PlatformProblem,
  PlatformResponseError,
  PlatformTokenError,
  PlatformDeferredError,
  PlatformStoppedError,
  isPermanentPlatformRefusal,
  isPlatformPause,
  problemTypeSuffix,
  type PlatformErrorCode,
} from "./errors.js";
export { classifyNetworkError } from "./classify.js";
export {
  FAILURE_HINTS,
  isNetworkKind,
  type NetworkFailureKind,
  type PlatformFailureKind,
} from "./failure-kind.js";
