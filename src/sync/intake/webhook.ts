import type { SyncContext } from "../context.js";
import { issueKey } from "../records/threat-index.js";
import { singleIssueGroup } from "../groups/single-members.js";
import { absorbIssueNow as absorbWatchedIssue, mappedIssues, reposToWatch } from "./github.js";

/**
 * Intake of one issue a GitHub webhook named (contract, "GitHub webhooks"): the same absorption
 * as a poll's, for one issue read now (see `absorbIssueNow` in github.ts). A delivery names its
 * repository as GitHub spells it, which may differ in case from the configuration's spelling: it is
 * matched to a watched repository first, and a repository the connector does not watch is none of
 * its business.
 */

/** The watched repository as the connector spells it, or null when it does not watch `repo`. */
function watchedRepo(ctx: SyncContext, repo: string): string | null {
  const wanted = repo.toLowerCase();
  return reposToWatch(ctx).find((r) => r.toLowerCase() === wanted) ?? null;
}

/**
 * Whether `repo#number` is the one issue of a group in `single` mode: a person's close or reopen of
 * it is its members' verdicts.
 */
function isSingleGroupIssue(ctx: SyncContext, repo: string, number: number): boolean {
  // Under any setting: one made under a grouping since changed is absorbed under its own.
  return singleIssueGroup(ctx, repo, number) !== null;
}

/**
 * Whether a delivery names an issue the connector manages: in a repository it watches, and
 * carrying a threat's marker (`markerThreatId`, read from the delivery's body), mapped by the
 * state, or the one issue of a group in single mode.
 */
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

/**
 * Reads one issue a delivery named and absorbs it as a poll would (adopted, or a person's change
 * queued as verdict work), committing at once; the poll watermark does not move. Must run where
 * cycles and drains run (the daemon's single loop), never beside them.
 */
export async function absorbIssueNow(ctx: SyncContext, repo: string, number: number): Promise<boolean> {
  const watched = watchedRepo(ctx, repo);
  if (watched === null) return false;
  const absorbed = await absorbWatchedIssue(ctx, watched, number);
  // A single-mode group's issue: the person's change was recorded on the group and its subject
  // queued; the drain that follows sends it to the members as their verdicts.
  return absorbed || isSingleGroupIssue(ctx, watched, number);
}
