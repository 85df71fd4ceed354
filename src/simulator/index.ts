export { startSimulator, type RunningSimulator } from "./start.js";
export type { SimulatorOptions } from "./options.js";
export type { Simulator, NewThreatInput, NewAssetInput, ThreatChangesInput } from "./controls.js";
export type { FaultSettings } from "./faults.js";
export type { ScanOutcome } from "./threat-status.js";
export type { ScanResult } from "./store.js";
export type { ApiAsset, ApiThreat, ThreatStatus, Severity } from "./records.js";
export { SimulatorError } from "./errors.js";
