export { startSimulator, type RunningSimulator } from "./start.js";
export type { SimulatorOptions } from "./options.js";
export type {
  Simulator,
  SimulatorStats,
  SimulatorState,
  NewThreatInput,
  NewAssetInput,
  ThreatChangesInput,
} from "./controls.js";
export type { FaultSettings } from "./faults.js";
export type { ScanOutcome } from "./threat-status.js";
export type { ScanResult } from "./store.js";
export type { ApiAsset, ApiThreat, ApiExternalReference, ThreatStatus, Severity } from "./records.js";
export { SimulatorError, type SimulatorErrorCode } from "./errors.js";
