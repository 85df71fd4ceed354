import type { SyncContext } from "../context.js";
import { groupIdOf } from "./group-key.js";
import { hasOldSingles, syncOld } from "./run-retire.js";
import { supersedeAndCommit, supersededGroups } from "./supersede.js";

/**
 * The start of a cycle after `grouping` changed (contract, "Changing grouping": loses nothing):
 * the old setting's groups are superseded, and a person's close or reopen of an old single-mode
 * issue that the connector had not absorbed yet is read (`readGitHub`, the change poll) and its
 * verdicts sent under the old setting, before the new setting plans any member's issue: a member
 * that close solved then gets none. Nothing is written in a dry run; with no `readGitHub`
 * (`reconcile`) the groups are only superseded.
 */
export async function beginGroupingChange(
  ctx: SyncContext,
  readGitHub: (() => Promise<void>) | null,
  stop: () => boolean,
): Promise<void> {
  await supersedeAndCommit(ctx);
  if (readGitHub === null || ctx.dryRun || !hasOldSingles(ctx)) return;
  await readGitHub();
  await syncOld(ctx, stop, { personOnly: true });
}

/**
 * Whether a new group issue of `groupId` in `repo` must wait: an issue of a superseded group with
 * the same marker is not retired yet there (no marker on two open issues; nor is the old one taken
 * over as the new group's).
 */
export function markerHeld(ctx: SyncContext, groupId: string, repo: string): boolean {
  return supersededGroups(ctx).some(([, g]) => {
    if (groupIdOf(g.by, g.key) !== groupId) return false;
    const issue = g.parents[repo] ?? g.single?.[repo];
    return issue !== undefined && issue.retired === undefined && issue.refused === undefined;
  });
}
