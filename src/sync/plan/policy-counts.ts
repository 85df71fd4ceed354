import { noIssueReason, type Policy } from "./policy.js";
import type { AssetView, ThreatView } from "../render/index.js";

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
