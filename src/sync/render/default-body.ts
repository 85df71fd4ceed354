import { escapeMarkdownBlock, escapeMarkdownInline } from "./escape.js";
import { MAX_RENDERED_BODY_LENGTH } from "./limits.js";
import { markerFor } from "../../shared/index.js";
import { moduleDataRows, moduleDataTable } from "./module-data.js";
import { precut, TRUNCATED_NOTE, truncateBlock, truncateWithEllipsis } from "./truncate.js";
import { relatedSection } from "./related-section.js";
import { inertRouteLine } from "./route-line.js";
import type { AssetView, RelatedView, ThreatView } from "./types.js";

/**
 * The default issue body. It always fits GitHub's body limit: the table cells are bounded, and the
 * description and module data share what is left, each cut with a visible note. The marker is never cut.
 */

const MISSING = "—";

export const FOOTER =
  "---\n\n_This issue is managed by threatbridge and mirrors a threat on the security platform. " +
  "Closing it sends a verdict on the threat to the platform; reopening it sends the threat back to unsolved._";

const CAP = { title: 1_000, short: 100, name: 500, id: 200 } as const;

/** An escaped table cell within `cap` raw characters (twice that escaped), or a dash if missing. */
function tableCell(raw: string | null, cap: number): string {
  if (raw === null || raw.trim() === "") return MISSING;
  const { text, cut } = precut(raw, cap);
  const escaped = escapeMarkdownInline(text);
  if (!cut && escaped.length <= cap * 2) return escaped;
  return truncateWithEllipsis(cut ? `${escaped}…` : escaped, cap * 2);
}

function ageText(days: number | null): string {
  if (days === null || !Number.isFinite(days)) return MISSING;
  return `${String(days)} ${days === 1 ? "day" : "days"}`;
}

/**
 * No status row: the open/closed state shows the platform status, so a verdict's echo (the
 * platform answering `pending` or `solved`) costs no GitHub write.
 */
function summaryTable(threat: ThreatView, asset: AssetView | null): string {
  const rows: [string, string][] = [
    ["Title", tableCell(threat.title, CAP.title)],
    ["Severity", tableCell(threat.severity, CAP.short)],
    ["Module", tableCell(threat.module, CAP.short)],
    ["Asset", tableCell(asset?.name ?? null, CAP.name)],
    ["Asset type", tableCell(asset?.type ?? null, CAP.short)],
    ["Age", ageText(threat.ageDays)],
    ["Threat ID", tableCell(threat.id, CAP.id)],
    ["Asset ID", tableCell(asset?.id ?? threat.assetId, CAP.id)],
  ];

  return ["| Field | Value |", "|---|---|", ...rows.map(([k, v]) => `| ${k} | ${v} |`)].join("\n");
}

/**
 * The platform link from `platform.ui_url`, percent-encoded so nothing in it can end the Markdown
 * link destination; asked only where a ui_url is configured.
 */
export function platformLink(template: string, threatId: string): string | null {
  const url = template
    .replaceAll("{id}", encodeURIComponent(threatId.replace(/[\uD800-\uDFFF]/g, "")))
    .replace(/[\s()<>\\`]/g, percentEncode);
  return url.length > 2_000 ? null : url;
}

function percentEncode(c: string): string {
  const encoded = encodeURIComponent(c);
  return encoded !== c ? encoded : `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`;
}

function share(a: number, b: number, available: number): [number, number] {
  if (a + b <= available) return [a, b];
  const half = Math.floor(available / 2);
  if (a <= half) return [a, available - a];
  if (b <= half) return [available - b, b];
  return [half, available - half];
}

const NO_DESCRIPTION = "_No description._";

function description(raw: string | null): string {
  if (raw === null || raw.trim() === "") return NO_DESCRIPTION;
  // Escaping never shortens text, so anything past the body limit could never be shown.
  const { text, cut } = precut(raw, MAX_RENDERED_BODY_LENGTH);
  const escaped = escapeMarkdownBlock(text);
  return cut ? `${escaped}${TRUNCATED_NOTE}` : escaped;
}

/** The features' hidden lines of a threat's body, after its marker (built-in body or templated). */
export function hiddenLinesOf(threat: ThreatView): string[] {
  return Object.values(threat.features ?? {}).flatMap((part) => part.hidden ?? []);
}

export function defaultBody(
  threat: ThreatView,
  asset: AssetView | null,
  platformUiUrl?: string,
  related?: RelatedView | null,
  routeLine?: string | null,
): string {
  const url = platformUiUrl ? platformLink(platformUiUrl, threat.id) : null;
  // Bounded like the table (related-section.ts), so it is part of the frame the long parts share.
  const relatedPart = related ? relatedSection(related) : null;
  // The features' lines (never what changes with the clock alone: that would rewrite every issue daily).
  const shown = Object.values(threat.features ?? {});
  const lines = shown.flatMap((part) => part.lines ?? []);
  const routed = routeLine ? [inertRouteLine(routeLine)] : [];
  const head = [summaryTable(threat, asset), ...lines, ...routed, "### Description"];
  const tail = [
    ...(relatedPart === null ? [] : [relatedPart]),
    ...(url === null ? [] : [`[Open this threat in the platform](${url})`]),
    FOOTER,
    markerFor(threat.id),
    // The features' hidden lines after the marker, as hiddenLinesOf gives a templated body.
    ...shown.flatMap((part) => part.hidden ?? []),
  ];
  const frame = (desc: string, data: string | null): string =>
    [...head, desc, ...(data === null ? [] : ["### Module data", data]), ...tail].join("\n\n");

  const desc = description(threat.description);
  const rows = moduleDataRows(threat.moduleData);
  const fullData = moduleDataTable(rows, Number.POSITIVE_INFINITY);
  const available = MAX_RENDERED_BODY_LENGTH - frame("", fullData === null ? null : "").length;
  const [descBudget, dataBudget] = share(desc.length, fullData?.length ?? 0, available);
  return frame(truncateBlock(desc, descBudget), fullData === null ? null : moduleDataTable(rows, dataBudget));
}
