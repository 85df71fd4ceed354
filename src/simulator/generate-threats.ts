import { DAY_MS, processingTime } from "./generate-assets.js";
import type { Random } from "./random.js";
import { NO_REFERENCES } from "./records.js";
import type { AssetRecord, AssetType, ModuleData, Severity, ThreatRecord, ThreatStatus } from "./records.js";
import { isAutoVerified } from "./threat-status.js";
import {
  ACCEPT_NOTES,
  CLOUD_ISSUES,
  CVES,
  DNS_ISSUES,
  LCM_PRODUCTS,
  LEAK_SOURCES,
  TRICKY_SUFFIXES,
  WEB_ISSUES,
} from "./vocabulary.js";

/** Which asset types a module's findings attach to. */
const TYPES_BY_MODULE: Record<string, readonly AssetType[]> = {
  lcm: ["domain", "ip"],
  vulnerability: ["ip", "domain"],
  dns: ["domain"],
  web: ["domain", "ip", "certificate"],
  leaked_credentials: ["account", "person", "repository"],
  cloud: ["tenant", "account"],
};

const MODULE_WEIGHTS = [
  "lcm",
  "lcm",
  "vulnerability",
  "vulnerability",
  "dns",
  "web",
  "web",
  "leaked_credentials",
  "cloud",
];
const SEVERITY_WEIGHTS: readonly Severity[] = [
  "informational",
  "low",
  "low",
  "medium",
  "medium",
  "medium",
  "high",
  "high",
  "critical",
];

/** The first threats cover every module, severity and status, so even tiny data sets show them all. */
const FIXED: ReadonlyArray<{ module: string; severity: Severity; status: ThreatStatus; lcmData?: false }> = [
  { module: "vulnerability", severity: "critical", status: "pending" },
  { module: "lcm", severity: "high", status: "unsolved" },
  { module: "dns", severity: "medium", status: "solved" },
  { module: "leaked_credentials", severity: "low", status: "false_positive" },
  { module: "web", severity: "informational", status: "accepted" },
  { module: "cloud", severity: "critical", status: "unsolved" },
  { module: "lcm", severity: "medium", status: "unsolved", lcmData: false },
];

interface GeneratedThreat {
  record: ThreatRecord;
  processedMs: number;
}

interface ThreatDraft {
  module: string;
  severity: Severity;
  status: ThreatStatus;
  asset: AssetRecord;
  withLcmData: boolean;
}

function initialStatus(random: Random, module: string): ThreatStatus {
  const roll = random.next();
  if (roll < 0.7) return "unsolved";
  if (roll < 0.8) return isAutoVerified(module) ? "pending" : "unsolved";
  if (roll < 0.88) return "solved";
  if (roll < 0.94) return "false_positive";
  return "accepted";
}

/** One frozen enrichment per product, shared by its threats (records replace it, never mutate it). */
const LCM_DATA: readonly ModuleData[] = LCM_PRODUCTS.map((product) =>
  Object.freeze({
    product: product.product,
    version: product.version,
    latest_version: product.latest,
    end_of_life: product.endOfLife,
    support_status: product.endOfLife === null ? "outdated" : "end_of_life",
  }),
);

function titleOf(random: Random, module: string, asset: AssetRecord, data: ModuleData | null): string {
  const on = (template: string): string => template.replace("{host}", asset.name);
  switch (module) {
    case "lcm":
      return data === null
        ? `Outdated software detected on ${asset.name}`
        : `End-of-life software on ${asset.name}: ${String(data["product"])} ${String(data["version"])}`;
    case "vulnerability": {
      const cve = random.pick(CVES);
      return `${cve.id}: ${cve.title} on ${asset.name}`;
    }
    case "dns":
      return on(random.pick(DNS_ISSUES));
    case "web":
      return on(random.pick(WEB_ISSUES));
    case "leaked_credentials":
      return `Credentials of ${asset.name} found in ${random.pick(LEAK_SOURCES)}`;
    default:
      return on(random.pick(CLOUD_ISSUES));
  }
}

/** Builds one threat record from a draft; used for generated data and for `POST /_sim/threats`. */
export function buildThreat(random: Random, draft: ThreatDraft, index: number, nowMs: number): ThreatRecord {
  const data = draft.module === "lcm" && draft.withLcmData ? random.pick(LCM_DATA) : null;
  const tricky =
    index % 17 === 3 ? TRICKY_SUFFIXES[Math.floor(index / 17) % TRICKY_SUFFIXES.length] : undefined;
  const firstSeenAtMs = Math.max(
    draft.asset.firstSeenAtMs,
    nowMs - random.int(1, 365) * DAY_MS - random.int(0, DAY_MS),
  );
  const updatedAtMs = Math.min(
    nowMs - 2 * DAY_MS,
    firstSeenAtMs + random.int(0, 20) * DAY_MS + random.int(0, DAY_MS),
  );
  const title = titleOf(random, draft.module, draft.asset, data);
  return {
    id: random.uuid(),
    name: tricky === undefined ? title : title + tricky.name,
    description:
      `Found by the ${draft.module} module on ${draft.asset.type} ${draft.asset.name}.` +
      (tricky === undefined ? "" : ` ${tricky.description}`),
    severity: draft.severity,
    module: draft.module,
    assetId: draft.asset.id,
    status: draft.status,
    statusNote: draft.status === "accepted" ? random.pick(ACCEPT_NOTES) : "",
    note: random.chance(0.1) ? "Triaged in the weekly review." : "",
    firstSeenAtMs,
    statusChangedAtMs: Math.max(firstSeenAtMs, updatedAtMs),
    updatedAtMs: Math.max(firstSeenAtMs, updatedAtMs),
    moduleData: data,
    externalReferences: NO_REFERENCES,
    logIndex: -1,
  };
}

export function generateThreats(
  random: Random,
  count: number,
  assets: readonly AssetRecord[],
  nowMs: number,
): GeneratedThreat[] {
  const byType = new Map<AssetType, AssetRecord[]>();
  for (const asset of assets) {
    const list = byType.get(asset.type);
    if (list === undefined) byType.set(asset.type, [asset]);
    else list.push(asset);
  }
  const candidatesByModule = new Map<string, AssetRecord[]>();
  for (const [module, types] of Object.entries(TYPES_BY_MODULE)) {
    const candidates = types.flatMap((type) => byType.get(type) ?? []);
    candidatesByModule.set(module, candidates.length > 0 ? candidates : [...assets]);
  }
  const threats: GeneratedThreat[] = [];
  for (let i = 0; i < count; i += 1) {
    const fixed = FIXED[i];
    const module = fixed?.module ?? random.pick(MODULE_WEIGHTS);
    const asset = random.pick(candidatesByModule.get(module) ?? assets);
    const draft: ThreatDraft = {
      module,
      severity: fixed?.severity ?? random.pick(SEVERITY_WEIGHTS),
      status: fixed?.status ?? initialStatus(random, module),
      asset,
      withLcmData: fixed?.lcmData ?? random.chance(0.8),
    };
    const record = buildThreat(random, draft, i, nowMs);
    threats.push({ record, processedMs: processingTime(random, record.updatedAtMs, nowMs) });
  }
  return threats;
}
