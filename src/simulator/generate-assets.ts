import type { Random } from "./random.js";
import type { AssetRecord, AssetType, BusinessValue } from "./records.js";
import {
  BASE_DOMAINS,
  FIRST_NAMES,
  IP_PREFIXES,
  LAST_NAMES,
  SUBDOMAINS,
  TENANT_NAMES,
} from "./vocabulary.js";

export const DAY_MS = 86_400_000;
/** Initial data was processed in daily batches: many rows share one `stream_position` (spec, Asset). */
const BATCH_MS = DAY_MS;

/** The repeating mix of asset types; every twentieth asset is a repository without relations. */
const TYPE_PATTERN: readonly AssetType[] = [
  "tenant",
  "account",
  "account",
  "account",
  "account",
  "person",
  "person",
  "person",
  "domain",
  "domain",
  "domain",
  "domain",
  "domain",
  "ip",
  "ip",
  "ip",
  "ip",
  "ip",
  "certificate",
  "repository",
];

const MODULES_BY_TYPE: Record<AssetType, readonly string[]> = {
  domain: ["dns", "web", "lcm", "vulnerability"],
  ip: ["vulnerability", "lcm", "web"],
  tenant: ["cloud"],
  account: ["cloud", "leaked_credentials"],
  person: ["leaked_credentials"],
  certificate: ["web"],
  repository: ["leaked_credentials"],
};

interface GeneratedAsset {
  record: AssetRecord;
  processedMs: number;
}

interface GeneratedAssets {
  assets: GeneratedAsset[];
  relations: Array<readonly [string, string]>;
}

/** Processing happens a little after the change and in batches, so stream order ≠ `updated_at` order. */
export function processingTime(random: Random, updatedAtMs: number, nowMs: number): number {
  const lagged = updatedAtMs + random.int(0, 3 * 3_600_000);
  return Math.min(Math.ceil(lagged / BATCH_MS) * BATCH_MS, nowMs - 60_000);
}

/** Stable sort by processing time, grouping the few distinct batch times. */
export function inProcessingOrder<T extends { processedMs: number }>(rows: readonly T[]): T[] {
  const groups = new Map<number, T[]>();
  for (const row of rows) {
    const group = groups.get(row.processedMs);
    if (group === undefined) groups.set(row.processedMs, [row]);
    else group.push(row);
  }
  return [...groups.keys()].sort((a, b) => a - b).flatMap((key) => groups.get(key) ?? []);
}

function nameOf(
  random: Random,
  type: AssetType,
  ordinal: number,
): { name: string; properties: Record<string, string> } {
  const base = BASE_DOMAINS[ordinal % BASE_DOMAINS.length] ?? "acme-corp.example";
  const round = Math.floor(ordinal / BASE_DOMAINS.length);
  switch (type) {
    case "domain": {
      const sub = SUBDOMAINS[round % SUBDOMAINS.length] ?? "www";
      const suffix = round >= SUBDOMAINS.length ? String(Math.floor(round / SUBDOMAINS.length)) : "";
      const fqdn = `${sub}${suffix}.${base}`;
      return { name: fqdn, properties: { fqdn } };
    }
    case "ip": {
      const prefix = IP_PREFIXES[ordinal % IP_PREFIXES.length] ?? "192.0.2";
      const address = `${prefix}.${(Math.floor(ordinal / IP_PREFIXES.length) % 254) + 1}`;
      return { name: address, properties: { address, asn: `AS${64496 + (ordinal % 16)}` } };
    }
    case "tenant": {
      const name = TENANT_NAMES[ordinal % TENANT_NAMES.length] ?? "Acme Corp";
      return { name: round > 0 ? `${name} #${round + 1}` : name, properties: { tenant_id: random.uuid() } };
    }
    case "account": {
      const user = `${random.pick(FIRST_NAMES).toLowerCase()}.${random.pick(LAST_NAMES).toLowerCase()}${ordinal}`;
      const email = `${user}@${base}`;
      return { name: email, properties: { email, provider: random.pick(["aws", "m365", "google"]) } };
    }
    case "person": {
      const name = `${random.pick(FIRST_NAMES)} ${random.pick(LAST_NAMES)}`;
      return { name, properties: { department: random.pick(["IT", "Finance", "Sales", "R&D"]) } };
    }
    case "certificate": {
      const cn = `*.${base}`;
      return {
        name: `TLS certificate ${cn}`,
        properties: { common_name: cn, serial: random.uuid().replace(/-/g, "") },
      };
    }
    case "repository":
      return {
        name: `acme/service-${ordinal + 1}`,
        properties: { url: `https://git.${base}/acme/service-${ordinal + 1}` },
      };
  }
}

/** One asset of a type; `ordinal` (its number among assets of that type) makes its name unique. */
export function buildAsset(random: Random, type: AssetType, ordinal: number, nowMs: number): AssetRecord {
  const { name, properties } = nameOf(random, type, ordinal);
  const firstSeenAtMs = nowMs - random.int(30, 400) * DAY_MS + random.int(0, DAY_MS);
  return {
    id: random.uuid(),
    name,
    type,
    businessValue: random.pick<BusinessValue>(["low", "medium", "medium", "high", "critical"]),
    publicFacing: type === "domain" || type === "ip" || type === "certificate" ? random.chance(0.8) : false,
    properties,
    firstSeenAtMs,
    modules: [...MODULES_BY_TYPE[type]],
    updatedAtMs: firstSeenAtMs,
    deletedAtMs: null,
    logIndex: -1,
  };
}

export function generateAssets(random: Random, count: number, nowMs: number): GeneratedAssets {
  const assets: GeneratedAsset[] = [];
  const byType = new Map<AssetType, string[]>();
  const ordinals = new Map<AssetType, number>();
  for (let i = 0; i < count; i += 1) {
    const type = TYPE_PATTERN[i % TYPE_PATTERN.length] ?? "domain";
    const ordinal = ordinals.get(type) ?? 0;
    ordinals.set(type, ordinal + 1);
    const record = buildAsset(random, type, ordinal, nowMs);
    // Asset facts were last refreshed within the past two months.
    record.updatedAtMs = Math.max(
      record.firstSeenAtMs,
      nowMs - random.int(2, 60) * DAY_MS - random.int(0, DAY_MS),
    );
    const { updatedAtMs } = record;
    assets.push({ record, processedMs: processingTime(random, updatedAtMs, nowMs) });
    const sameType = byType.get(type);
    if (sameType === undefined) byType.set(type, [record.id]);
    else sameType.push(record.id);
  }
  return { assets, relations: relate(random, byType) };
}

/** Symmetric links: tenant↔account, person↔account, domain↔ip, certificate↔domain. */
function relate(random: Random, byType: Map<AssetType, string[]>): Array<readonly [string, string]> {
  const relations: Array<readonly [string, string]> = [];
  const link = (from: AssetType, to: AssetType, probability: number, max: number): void => {
    const targets = byType.get(to) ?? [];
    if (targets.length === 0) return;
    for (const id of byType.get(from) ?? []) {
      if (!random.chance(probability)) continue;
      const n = random.int(1, Math.min(max, targets.length));
      const chosen = new Set<string>();
      for (let k = 0; k < n; k += 1) chosen.add(random.pick(targets));
      for (const target of chosen) relations.push([id, target]);
    }
  };
  // Every account belongs to one tenant, round robin, so every tenant has accounts.
  const tenants = byType.get("tenant") ?? [];
  (byType.get("account") ?? []).forEach((account, i) => {
    const tenant = tenants[i % Math.max(1, tenants.length)];
    if (tenant !== undefined) relations.push([account, tenant]);
  });
  link("person", "account", 0.8, 2);
  link("ip", "domain", 0.9, 2);
  link("certificate", "domain", 1, 3);
  return relations;
}

export function modulesFor(type: AssetType): readonly string[] {
  return MODULES_BY_TYPE[type];
}
