import type { GroupRecord } from "../../state/index.js";
import { nowIso, persist, type SyncContext } from "../context.js";
import { groupTally } from "../records/group-tally.js";
import { enqueue } from "../records/queue.js";
import { dropQueue, putGroup, putIntent } from "../records/state-updates.js";
import { groupRetired } from "../transitions/group.js";

/**
 * Changing `grouping` (contract, "Workflow" → "Changing grouping"): a group record made under a
 * setting (`by`, `mode`) the config no longer has is superseded. It is moved out of its group's
 * key to one of its own, so that the new setting's groups (a group of the same `by` and key in the
 * other mode among them) start afresh beside it, while the old record keeps what its setting
 * needs: its issues, to absorb a person's change under the old setting (its members' verdicts) and
 * then to retire them (groups/retire-plan.ts). A superseded record is never planned as a group
 * again and files no member.
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

/**
 * Supersedes every record whose setting the config no longer has, once, at the start of a cycle
 * (after unfinished intents are resolved: one still open moves with its record). A record with no
 * issue has nothing to absorb or retire and is dropped. Answers how many were superseded.
 */
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

/**
 * The members attached as sub-issues to a parent of a superseded group: a new setting's parent
 * moves them to itself (GitHub's `replace_parent`) rather than leaving them where a person would
 * have put them.
 */
export function attachedToOldParents(ctx: SyncContext): Set<string> {
  const ids = new Set<string>();
  for (const [, group] of supersededGroups(ctx)) {
    for (const parent of Object.values(group.parents)) for (const id of parent.attached) ids.add(id);
  }
  return ids;
}
