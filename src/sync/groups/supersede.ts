import type { GroupRecord } from "../schema.js";
import { nowIso, persist, type SyncContext } from "../context.js";
import { groupTally } from "../records/group-tally.js";
import { enqueue } from "../records/queue.js";
import { dropQueue, putGroup, putIntent } from "../records/state-updates.js";
import { groupRetired } from "../transitions/group.js";

/**
 * Changing `grouping` (contract, "Changing grouping"): a record of a setting the config no longer
 * has moves to a key of its own, so the new groups start afresh while the old one keeps its issues
 * to absorb people's changes and be retired. It is never planned as a group again.
 */

export type GroupMode = "parent" | "single";

/** The mode a record was made under; a state written before it was kept says by its contents. */
export function modeOf(group: GroupRecord): GroupMode {
  if (group.mode !== undefined) return group.mode;
  const single =
    Object.keys(group.single ?? {}).length > 0 ||
    Object.values(group.members).some((m) => m.repo !== undefined);
  return single ? "single" : "parent";
}

/** Whether a record's setting is the configured one. */
export function isCurrent(ctx: SyncContext, group: GroupRecord): boolean {
  const grouping = ctx.config.grouping;
  if (group.superseded !== undefined || grouping === undefined) return false;
  return group.by === grouping.by && modeOf(group) === (grouping.mode ?? "parent");
}

/** The groups of the configured setting, by key (superseded records left out). */
function currentGroups(ctx: SyncContext): Array<[string, GroupRecord]> {
  return Object.entries(ctx.state.groups ?? {}).filter(([, g]) => g.superseded === undefined);
}

/** The superseded records, by key. */
export function supersededGroups(ctx: SyncContext): Array<[string, GroupRecord]> {
  // None, in all but the cycles after a grouping change: answered without a walk (each group's plan asks).
  if (groupTally(ctx.state.groups).superseded === 0) return [];
  return Object.entries(ctx.state.groups ?? {}).filter(([, g]) => g.superseded !== undefined);
}

function hasIssue(group: GroupRecord): boolean {
  return Object.keys(group.parents).length > 0 || Object.keys(group.single ?? {}).length > 0;
}

function freeKey(ctx: SyncContext, groupId: string): string {
  for (let n = 1; ; n++) {
    const key = `superseded:${n}:${groupId}`;
    if (ctx.state.groups?.[key] === undefined) return key;
  }
}

/** Supersedes every record of a dropped setting, once per cycle start; one without an issue is dropped. */
function supersedeChangedGroups(ctx: SyncContext): number {
  let moved = 0;
  for (const [groupId, group] of currentGroups(ctx)) {
    if (isCurrent(ctx, group)) continue;
    putGroup(ctx, groupId, undefined);
    dropQueue(ctx, groupId);
    moved += 1;
    if (!hasIssue(group)) continue;
    const key = freeKey(ctx, groupId);
    putGroup(ctx, key, { ...group, mode: modeOf(group), superseded: nowIso(ctx) });
    // Its subject is queued under its new key: its issues are absorbed and retired.
    enqueue(ctx, key, {}, nowIso(ctx));
    for (const intent of Object.values(ctx.state.intents)) {
      if (intent.threatId === groupId) putIntent(ctx, { ...intent, threatId: key });
    }
  }
  // The member index is rebuilt from the records as they are now.
  if (moved > 0) {
    delete ctx.groupMembers;
    delete ctx.oldGroupMembers;
  }
  return moved;
}

/** {@link supersedeChangedGroups}, committed (not in a dry run, whose state is never written). */
export async function supersedeAndCommit(ctx: SyncContext): Promise<number> {
  const moved = supersedeChangedGroups(ctx);
  if (moved > 0 && !ctx.dryRun) {
    ctx.logger.info({ groups: moved }, "grouping changed: the groups of the old setting are retired");
    await persist(ctx);
  }
  return moved;
}

/** A superseded group's issue whose retiring comment is on GitHub (found by its key after a crash). */
export function retireNoted(ctx: SyncContext, groupId: string, repo: string, number: number): void {
  const group = ctx.state.groups?.[groupId];
  if (group?.superseded === undefined) return;
  const kind = group.parents[repo]?.number === number ? "parent" : "single";
  if (kind === "single" && group.single?.[repo]?.number !== number) return;
  putGroup(ctx, groupId, groupRetired(group, kind, repo, "noted"));
}

/** Members attached to a superseded parent: a new parent moves them to itself (`replace_parent`). */
export function attachedToOldParents(ctx: SyncContext): Set<string> {
  const ids = new Set<string>();
  for (const [, group] of supersededGroups(ctx)) {
    for (const parent of Object.values(group.parents)) for (const id of parent.attached) ids.add(id);
  }
  return ids;
}
