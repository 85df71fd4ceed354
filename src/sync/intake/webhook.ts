import type { SyncContext } from "../context.js";
import { issueKey } from "../records/threat-index.js";
import { singleIssueGroup } from "../groups/single-members.js";
import { absorbIssueNow as absorbWatchedIssue, mappedIssues, reposToWatch } from "./github.js";

/**
 * Intake of one issue a GitHub webhook named (contract, "GitHub webhooks"), absorbed as a poll
 * would. A delivery's repository is matched to a watched one case-insensitively; others are ignored.
 */

/** The watched repository as the connector spells it, or null when it does not watch `repo`. */
function watchedRepo(ctx: SyncContext, repo: string): string | null {
  const wanted = repo.toLowerCase();
  return reposToWatch(ctx).find((r) => r.toLowerCase() === wanted) ?? null;
}

/** Whether `repo#number` is a single-mode group's issue (its close or reopen is its members' verdicts). */
function isSingleGroupIssue(ctx: SyncContext, repo: string, number: number): boolean {
  // Under any setting: one made under a grouping since changed is absorbed under its own.
  return singleIssueGroup(ctx, repo, number) !== null;
}

/** Whether a delivery names an issue the connector manages (watched repository; marker, mapping or group). */
export function managesIssue(
  ctx: SyncContext,
  repo: string,
  number: number,
  markerThreatId: string | null,
): boolean {
  const watched = watchedRepo(ctx, repo);
  if (watched === null) return false;
  return (
    markerThreatId !== null ||
    mappedIssues(ctx).has(issueKey(watched, number)) ||
    isSingleGroupIssue(ctx, watched, number)
  );
}

/** Reads one issue and absorbs it as a poll would, committing at once; only on the daemon's loop. */
export async function absorbIssueNow(ctx: SyncContext, repo: string, number: number): Promise<boolean> {
  const watched = watchedRepo(ctx, repo);
  if (watched === null) return false;
  const absorbed = await absorbWatchedIssue(ctx, watched, number);
  // A single-mode group's issue: recorded on the group; the drain sends its members' verdicts.
  return absorbed || isSingleGroupIssue(ctx, watched, number);
}
