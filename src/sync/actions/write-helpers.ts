import type { IssueSnapshot } from "../../github/index.js";
import type { IssueRecord } from "../../state/index.js";
import { isRecord } from "../../shared/json.js";
import type { SyncContext } from "../context.js";
import { updateThreat } from "../records/state-updates.js";
import { issueStateIs, issueTransferred, threatGone } from "../transitions/outcome.js";

/** What more than one action module needs to carry out its write. */

/** GitHub answered and did not make the change (a limit, a refusal): nothing to find out later. */
export function surelyRefused(error: unknown): boolean {
  const code = isRecord(error) ? error["code"] : undefined;
  return (
    code === "rate_limited" ||
    code === "validation" ||
    code === "not_found" ||
    code === "unauthorized" ||
    code === "budget_deadline"
  );
}

export const GONE = Symbol("gone");

/**
 * A platform write for a threat that may have left the API meanwhile: a 404 `resource/not-found`
 * marks it gone (spec: a threat of a removed asset answers 404) instead of failing again and again.
 */
export async function ifStillThere<T>(
  ctx: SyncContext,
  threatId: string,
  write: () => Promise<T>,
): Promise<T | typeof GONE> {
  try {
    return await write();
  } catch (error) {
    if (!(isRecord(error) && error["type"] === "resource/not-found")) throw error;
    updateThreat(ctx, threatId, threatGone);
    ctx.cache.delete(threatId);
    ctx.emit({ type: "threat_gone", threatId });
    return GONE;
  }
}

/** Labels of the connector's own vocabulary; others (people's) are kept on update. */
function isManagedLabel(ctx: SyncContext, label: string): boolean {
  const l = label.toLowerCase();
  return (
    l === ctx.policy.managedLabel.toLowerCase() ||
    l === "pending" ||
    l.startsWith("severity:") ||
    l.startsWith("module:") ||
    ctx.policy.routes.some((r) => r.labels.some((x) => x.toLowerCase() === l))
  );
}

/**
 * Brings the connector's own labels on an issue to `wanted` through the label endpoints, from the
 * labels GitHub's last answer showed: nothing is sent when they already match (the usual case, since
 * the labels change only with severity, module or route), and people's labels are never touched.
 */
export async function syncLabels(
  ctx: SyncContext,
  issue: IssueSnapshot,
  wanted: readonly string[],
): Promise<void> {
  const has = new Set(issue.labels.map((l) => l.toLowerCase()));
  const want = new Set(wanted.map((l) => l.toLowerCase()));
  const add = wanted.filter((l) => !has.has(l.toLowerCase()));
  const remove = issue.labels.filter((l) => isManagedLabel(ctx, l) && !want.has(l.toLowerCase()));
  if (add.length > 0) await ctx.github.addLabels(issue.repo, issue.number, add);
  for (const label of remove) await ctx.github.removeLabel(issue.repo, issue.number, label);
}

/** A person transferred the issue (GitHub answered from its new place): the record follows it. */
export function repoint(
  ctx: SyncContext,
  threatId: string,
  known: IssueRecord,
  current: IssueSnapshot,
): void {
  if (known.repo === current.repo && known.number === current.number) return;
  ctx.logger.info(
    { from: `${known.repo}#${known.number}`, to: `${current.repo}#${current.number}` },
    "the issue was transferred; the connector follows it and re-points the platform's link",
  );
  updateThreat(ctx, threatId, (r) => issueTransferred(r, known, current));
  ctx.emit({ type: "transferred", threatId, issue: { repo: current.repo, number: current.number } });
}

/** The issue's state in the record follows what the connector (or a person) made it. */
export function setIssueState(ctx: SyncContext, threatId: string, state: "open" | "closed"): void {
  updateThreat(ctx, threatId, (r) => issueStateIs(r, state));
}
