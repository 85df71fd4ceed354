import type { Config } from "../../config/index.js";
import { GITHUB_SYSTEM, type Asset, type Threat } from "../../platform/index.js";
import { getPath, isRecord } from "../../shared/json.js";
import { pickValues } from "../../shared/kept-values.js";
import type { AssetView, ThreatView } from "./types.js";
import { SEVERITIES } from "../../shared/severity.js";

/**
 * Platform JSON as the plain views the planner and renderer see, found at the YAML's `fields`
 * paths. A missing field degrades the rendering, never the sync (the contract).
 */

function text(value: unknown): string | null {
  if (typeof value === "string") return value.trim() === "" ? null : value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return null;
}

/** The spec: severity is "mapped by consumers to a number from 0 informational to 4 critical". */
const SEVERITY_WORDS: Record<string, number> = {
  ...Object.fromEntries(SEVERITIES.map((name, rank) => [name, rank])),
  info: 0,
  none: 0,
  minor: 1,
  moderate: 2,
  major: 3,
  important: 3,
  urgent: 4,
};

export function severityRank(value: unknown): number | null {
  if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 4) return value;
  if (typeof value !== "string") return null;
  const word = value.trim().toLowerCase();
  if (/^[0-4]$/.test(word)) return Number(word);
  return SEVERITY_WORDS[word] ?? null;
}

export function severityName(rank: number | null): string | null {
  return rank === null ? null : (SEVERITIES[rank] ?? null);
}

/** `routePaths`: the routes' `where` paths into the threat (`threat.…`), whose values the view keeps. */
export function toThreatView(
  threat: Threat,
  fields: Config["fields"]["threat"],
  routePaths: readonly string[] = [],
): ThreatView {
  const severity = text(getPath(threat, fields.severity));
  const age = getPath(threat, fields.age);
  const routeValues = routePaths.length === 0 ? undefined : pickValues(threat, "threat", routePaths);
  return {
    id: threat.id,
    title: text(getPath(threat, fields.title)),
    description: text(getPath(threat, fields.description)),
    severity,
    severityRank: severityRank(getPath(threat, fields.severity)),
    module: text(getPath(threat, fields.module)),
    status: threat.status,
    ageDays: typeof age === "number" && Number.isFinite(age) ? Math.floor(age) : null,
    assetId: text(getPath(threat, fields.asset_id)),
    moduleData: isRecord(threat.module_data) ? threat.module_data : null,
    updatedAt: threat.updated_at,
    ...(routeValues ? { routeValues } : {}),
  };
}

export function toAssetView(asset: Asset, fields: Config["fields"]["asset"]): AssetView {
  return {
    id: asset.id,
    name: text(getPath(asset, fields.name)),
    type: text(getPath(asset, fields.type)),
  };
}

/** The contract's link: `external_id` = `owner/name#<number>`. */
export interface IssueRef {
  repo: string;
  number: number;
}

export function formatExternalId(ref: IssueRef): string {
  return `${ref.repo}#${ref.number}`;
}

export function parseExternalId(externalId: string): IssueRef | null {
  const match = /^([A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+)#(\d+)$/.exec(externalId.trim());
  if (!match?.[1] || !match[2]) return null;
  const number = Number(match[2]);
  return Number.isSafeInteger(number) && number > 0 ? { repo: match[1], number } : null;
}

export const LINK_SYSTEM = GITHUB_SYSTEM;

/**
 * The threat's `github` external reference, if any (one per system: spec, External reference). One
 * without a url still names its issue; the link is written again with the issue's url.
 */
export function githubLink(threat: Threat): { externalId: string; url: string } | null {
  const ref = threat.external_references.find((r) => r.system === LINK_SYSTEM);
  return ref ? { externalId: ref.external_id, url: ref.url ?? "" } : null;
}
