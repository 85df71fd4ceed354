import type { SyncContext } from "../context.js";
import { groupIdOf } from "./group-key.js";
import { supersededGroups } from "./supersede.js";

/**
 * Whether a new group issue of `groupId` in `repo` must wait: an issue of a superseded group with
 * the same marker is not retired yet there (no marker on two open issues; nor is the old one taken
 * over as the new group's). The start of a cycle after a change is run/cycle.ts
 * `beginGroupingChange`.
 */
export function markerHeld(ctx: SyncContext, groupId: string, repo: string): boolean {
  return supersededGroups(ctx).some(([, g]) => {
    if (groupIdOf(g.by, g.key) !== groupId) return false;
    const issue = g.parents[repo] ?? g.single?.[repo];
    return issue !== undefined && issue.retired === undefined && issue.refused === undefined;
  });
}
