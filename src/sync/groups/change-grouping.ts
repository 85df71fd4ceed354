import type { SyncContext } from "../context.js";
import { groupIdOf } from "./group-key.js";
import { supersededGroups } from "./supersede.js";

/** Whether a new group issue must wait: a superseded group's issue with the same marker is not retired yet. */
export function markerHeld(ctx: SyncContext, groupId: string, repo: string): boolean {
  return supersededGroups(ctx).some(([, g]) => {
    if (groupIdOf(g.by, g.key) !== groupId) return false;
    const issue = g.parents[repo] ?? g.single?.[repo];
    return issue !== undefined && issue.retired === undefined && issue.refused === undefined;
  });
}
