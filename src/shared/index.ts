export { realSleep, systemClock, type Clock, type Sleep } from "./clock.js";
export { deepFreeze } from "./deep-freeze.js";
export { DATA_MAPS, snakeCase, snakeKeys } from "./snake-keys.js";
export { isRecord } from "./json.js";
export { createRequestTally, type RequestCount, type RequestTally } from "./request-tally.js";
export { rankOfSeverity, SEVERITIES, type SeverityName } from "./severity.js";
export {
  countedAs,
  eventBus,
  isWrite,
  writeSide,
  type CounterName,
  type EngineEvent,
  type EngineEventType,
  type EngineObserver,
  type IssueRef,
  type WriteEvent,
  type WriteSide,
} from "./engine-events.js";
export {
  isSettableStatus,
  isThreatStatus,
  SETTABLE_STATUSES,
  THREAT_STATUSES,
  type SettableStatus,
  type ThreatStatus,
} from "./threat-status.js";
export {
  commentKey,
  commentKeyed,
  findMarkerIds,
  groupMarkerFor,
  hasGroupMarker,
  isGroupIssue,
  hasMarker,
  markerFor,
  OWN_LINES,
  parseCommentKeys,
  parseGroupMarker,
  parseMarker,
  parseMarkerFound,
  parseSlaSince,
  slaSinceLine,
  parseRevision,
  retiredGroupBody,
  REVISION_LINE_RESERVE,
  withRevision,
} from "./hidden-lines.js";
export { DEFAULT_MANAGED_LABEL, GROUP_LABEL, isOwnLabel, moduleLabel, severityLabel } from "./labels.js";
export { everyKeyOf } from "./every-key.js";
export { DAY_MS, endOfTypedDay, parseDuration, utcDay } from "./duration.js";
