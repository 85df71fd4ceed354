/** The simulator's records and their JSON shapes; unnamed fields are the contract's `fields` defaults. */
import { THREAT_STATUSES, type ThreatStatus } from "../shared/threat-status.js";

export { THREAT_STATUSES, type ThreatStatus };

import { SEVERITIES, type SeverityName } from "../shared/severity.js";

export { SEVERITIES };
export type Severity = SeverityName;

export const ASSET_TYPES = [
  "domain",
  "ip",
  "tenant",
  "account",
  "person",
  "certificate",
  "repository",
] as const;
export type AssetType = (typeof ASSET_TYPES)[number];

export const BUSINESS_VALUES = ["low", "medium", "high", "critical"] as const;
export type BusinessValue = (typeof BUSINESS_VALUES)[number];

export type ModuleData = Record<string, string | number | boolean | null>;

export interface AssetRecord {
  id: string;
  name: string;
  type: AssetType;
  businessValue: BusinessValue;
  publicFacing: boolean;
  properties: Record<string, string>;
  firstSeenAtMs: number;
  modules: string[];
  updatedAtMs: number;
  deletedAtMs: number | null;
  /** Index of the latest version in the asset change log (-1 before it is logged). */
  logIndex: number;
}

interface ExternalReferenceRecord {
  system: string;
  externalId: string;
  url: string;
  linkedAtMs: number;
}

export interface ThreatRecord {
  id: string;
  name: string;
  description: string;
  severity: Severity;
  module: string;
  assetId: string;
  status: ThreatStatus;
  statusNote: string;
  note: string;
  firstSeenAtMs: number;
  statusChangedAtMs: number;
  updatedAtMs: number;
  moduleData: ModuleData | null;
  /** Replaced, never mutated, so threats without links can share one empty array. */
  externalReferences: readonly ExternalReferenceRecord[];
  /** Index of the latest version in the threat change log (-1 before it is logged). */
  logIndex: number;
}

export interface ApiAsset {
  id: string;
  name: string;
  type: AssetType;
  business_value: BusinessValue;
  public_facing: boolean;
  properties: Record<string, string>;
  first_seen_at: string;
  modules: string[];
  updated_at: string;
  stream_position: string | null;
  deleted: boolean;
  deleted_at: string | null;
}

interface ApiExternalReference {
  system: string;
  external_id: string;
  url: string;
  linked_at: string;
}

export interface ApiThreat {
  id: string;
  name: string;
  description: string;
  severity: Severity;
  module: string;
  asset_id: string;
  status: ThreatStatus;
  status_note: string;
  note: string;
  age_days: number;
  first_seen_at: string;
  status_changed_at: string;
  updated_at: string;
  stream_position: string | null;
  module_data: ModuleData | null;
  external_references: ApiExternalReference[];
}

const DAY_MS = 86_400_000;

/** The shared value of `externalReferences` for threats without links. */
export const NO_REFERENCES: readonly ExternalReferenceRecord[] = Object.freeze([]);

export const iso = (ms: number): string => new Date(ms).toISOString();

export function toApiAsset(asset: AssetRecord, streamPosition: string | null): ApiAsset {
  return {
    id: asset.id,
    name: asset.name,
    type: asset.type,
    business_value: asset.businessValue,
    public_facing: asset.publicFacing,
    properties: { ...asset.properties },
    first_seen_at: iso(asset.firstSeenAtMs),
    modules: [...asset.modules],
    updated_at: iso(asset.updatedAtMs),
    stream_position: streamPosition,
    deleted: asset.deletedAtMs !== null,
    deleted_at: asset.deletedAtMs === null ? null : iso(asset.deletedAtMs),
  };
}

export function toApiThreat(threat: ThreatRecord, streamPosition: string | null, nowMs: number): ApiThreat {
  return {
    id: threat.id,
    name: threat.name,
    description: threat.description,
    severity: threat.severity,
    module: threat.module,
    asset_id: threat.assetId,
    status: threat.status,
    status_note: threat.statusNote,
    note: threat.note,
    age_days: Math.max(0, Math.floor((nowMs - threat.firstSeenAtMs) / DAY_MS)),
    first_seen_at: iso(threat.firstSeenAtMs),
    status_changed_at: iso(threat.statusChangedAtMs),
    updated_at: iso(threat.updatedAtMs),
    stream_position: streamPosition,
    module_data: threat.moduleData === null ? null : { ...threat.moduleData },
    external_references: threat.externalReferences.map((ref) => ({
      system: ref.system,
      external_id: ref.externalId,
      url: ref.url,
      linked_at: iso(ref.linkedAtMs),
    })),
  };
}
