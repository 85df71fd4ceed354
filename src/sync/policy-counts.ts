import type { Policy } from "./policy.js";
import type { AssetView, ThreatView } from "./render/index.js";

/**
 * Why a threat gets no issue, for the dry-run's plan: the same tests as `isEligible` in policy.ts,
 * in its order, answering the first that keeps the threat out (contract: filters, first-seen statuses).
 */
export type NoIssueReason = "status" | "min_severity" | "module" | "asset_type";

function passes(
  value: string | null,
  list: { include?: string[] | undefined; exclude?: string[] | undefined } | undefined,
): boolean {
  if (!list) return true;
  const v = value?.toLowerCase() ?? null;
  if (list.include && !list.include.some((x) => x.toLowerCase() === v)) return false;
  if (list.exclude && v !== null && list.exclude.some((x) => x.toLowerCase() === v)) return false;
  return true;
}

export function noIssueReason(
  threat: ThreatView,
  asset: AssetView | null,
  policy: Policy,
): NoIssueReason | null {
  if (!policy.createForStatuses.includes(threat.status)) return "status";
  if ((threat.severityRank ?? 0) < policy.minSeverity) return "min_severity";
  if (!passes(threat.module, policy.modules)) return "module";
  if (!passes(asset?.type ?? null, policy.assetTypes)) return "asset_type";
  return null;
}

export interface NoIssueCounts {
  status: Record<string, number>;
  min_severity: number;
  module: number;
  asset_type: number;
}

/** Counts, over threats that have no issue, why each gets none (first seen statuses by status). */
export function countNoIssue(
  threats: Iterable<{ view: ThreatView; asset: AssetView | null }>,
  policy: Policy,
): NoIssueCounts {
  const counts: NoIssueCounts = { status: {}, min_severity: 0, module: 0, asset_type: 0 };
  for (const { view, asset } of threats) {
    const reason = noIssueReason(view, asset, policy);
    if (reason === null) continue;
    if (reason === "status") counts.status[view.status] = (counts.status[view.status] ?? 0) + 1;
    else counts[reason] += 1;
  }
  return counts;
}
