import type { CoreIssueScope } from "../../config/template-scopes.js";
import { isRecord } from "../../shared/json.js";
import { platformLink } from "./default-body.js";
import { escapeMarkdownBlock, escapeMarkdownInline, escapePlainText } from "./escape.js";
import { MODULE_DATA_HEADER, moduleDataRows } from "./module-data.js";
import { precut } from "./truncate.js";
import { relatedScope } from "./related-section.js";
import { inertRouteLine } from "./route-line.js";
import type { AssetView, RelatedView, RouteShown, ThreatView } from "./types.js";

/**
 * The variables user templates see (`IssueTemplateScope`). Every platform string is already escaped
 * for where the output goes, and raw values are never exposed, so a template cannot undo the inert rendering.
 */

type Escape = (text: string) => string;

const MAX_DEPTH = 8;
// Escaping never shortens text: more than the body limit could never be shown.
const MAX_RAW = 65_536;

function str(value: string | null, escape: Escape): string | null {
  return value === null ? null : escape(precut(value, MAX_RAW).text);
}

function escapeTree(value: unknown, escape: Escape, depth: number): unknown {
  if (typeof value === "string") return escape(precut(value, MAX_RAW).text);
  if (typeof value === "number" || typeof value === "boolean" || value === null) return value;
  if (depth >= MAX_DEPTH) return null;
  if (Array.isArray(value)) {
    const items: unknown[] = value;
    return items.map((item) => escapeTree(item, escape, depth + 1));
  }
  if (isRecord(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, child]) => [escape(key), escapeTree(child, escape, depth + 1)]),
    );
  }
  return null;
}

/** What a template's scope is made of: the threat, its asset, and what the issue shows beside them. */
type ScopeOf = [
  threat: ThreatView,
  asset: AssetView | null,
  platformUiUrl?: string,
  related?: RelatedView | null,
  route?: RouteShown | null,
];

function buildScope(
  inline: Escape,
  block: Escape,
  withTable: boolean,
  ...[threat, asset, platformUiUrl, related, route]: ScopeOf
): CoreIssueScope & Readonly<Record<string, unknown>> {
  const rows = withTable ? moduleDataRows(threat.moduleData) : [];
  // The features' variables (plain values the connector computed: nothing to escape), then the core's.
  const features = Object.values(threat.features ?? {}).map((part) => part.scope ?? {});
  return {
    ...Object.assign({}, ...features),
    threat: {
      id: str(threat.id, inline),
      title: str(threat.title, inline),
      description: str(threat.description, block),
      severity: str(threat.severity, inline),
      severity_rank: threat.severityRank,
      module: str(threat.module, inline),
      status: str(threat.status, inline),
      age_days: threat.ageDays,
      asset_id: str(threat.assetId, inline),
      updated_at: str(threat.updatedAt, inline),
      module_data: threat.moduleData === null ? null : escapeTree(threat.moduleData, inline, 0),
      module_data_table: rows.length === 0 ? "" : [MODULE_DATA_HEADER, ...rows].join("\n"),
    },
    asset: {
      id: str(asset?.id ?? null, inline),
      name: str(asset?.name ?? null, inline),
      type: str(asset?.type ?? null, inline),
    },
    platform_url: platformUiUrl ? platformLink(platformUiUrl, threat.id) : null,
    route: route ? { rule: route.rule, line: inertRouteLine(route.line, inline) } : null,
    ...relatedScope(related, withTable),
  };
}

/** Scope for the title template: plain-text escaping (GitHub titles show entities literally). */
export function titleScope(...of: ScopeOf): object {
  return buildScope(escapePlainText, escapePlainText, false, ...of);
}

/** Scope for the body template: Markdown escaping. */
export function bodyScope(...of: ScopeOf): object {
  return buildScope(escapeMarkdownInline, escapeMarkdownBlock, true, ...of);
}
