import { DEFAULT_MIN_MEMBERS } from "../../config/index.js";
import type { GroupRecord, ThreatRecord } from "../schema.js";
import { nowIso, type SyncContext } from "../context.js";
import { enqueue } from "../records/queue.js";
import { featuresFor, groupPlans } from "../features/registry.js";
import type { FeatureAction } from "../plan/plan.js";
import { adoptExisting, allowedAfter } from "./adopt-existing.js";
import { markerHeld } from "./change-grouping.js";
import { groupIdOf } from "./group-key.js";
import { groupRuntime, memberIndex } from "./membership.js";
import { planOld, type OldAction } from "./plan-old.js";
import { isAttachWork, planGroup, SUB_ISSUES_MAX, type GroupAction } from "./plan-groups.js";
import { planSingle, type SingleAction } from "./plan-single.js";
import type { MemberView } from "./render-parent.js";
import { membersOf } from "./single-members.js";
import { attachedToOldParents, isCurrent, supersededGroups } from "./supersede.js";

/**
 * A group as a subject of the one queue, planned from the state alone: parent mode (plan-groups.ts)
 * its parents' writes first, then its members' ids and attaches; single mode (plan-single.ts); a
 * superseded record (plan-old.ts). Queued by its members' changes (`enqueueOwners`), never swept.
 */

export type GroupSubjectAction = GroupAction | SingleAction | OldAction | FeatureAction;

export interface GroupPlanOptions {
  /** Only people's changes of a superseded group's issue (the start of a cycle after a change). */
  personOnly?: boolean;
  /** A dry run: everything due, attaches included, without waiting for what it waits on. */
  preview?: boolean;
}

/** A member's due day as the features show it on its issue (the parent's "earliest due date"), or null. */
function dueDayOf(ctx: SyncContext, record: ThreatRecord, nowMs: number): string | null {
  let due: string | null = null;
  for (const feature of featuresFor(ctx.config)) due = feature.plan?.viewOf?.(record, nowMs)?.dueDay ?? due;
  return due;
}

/** The members of a group with an issue, by repository (groups are per repository). */
function membersByRepo(ctx: SyncContext, group: GroupRecord): Map<string, MemberView[]> {
  const byRepo = new Map<string, MemberView[]>();
  const nowMs = ctx.clock.now();
  for (const [threatId, member] of Object.entries(group.members)) {
    const record = ctx.state.threats.get(threatId);
    const issue = record?.issue;
    if (!record || !issue) continue;
    const view: MemberView = {
      threatId,
      title: member.title,
      severity: member.severity,
      repo: issue.repo,
      number: issue.number,
      id: issue.id ?? null,
      state: issue.state,
      due: dueDayOf(ctx, record, nowMs),
    };
    const list = byRepo.get(issue.repo);
    if (list) list.push(view);
    else byRepo.set(issue.repo, [view]);
  }
  return byRepo;
}

/** Whether GitHub answered that `repo` has no sub-issues: its other parents keep the checklist alone. */
function withoutSubIssues(ctx: SyncContext, repo: string): boolean {
  const runtime = groupRuntime(ctx);
  if (runtime.said.has(`unavailable:${repo}`)) return true;
  if (runtime.noSubIssues === undefined) {
    runtime.noSubIssues = new Set();
    for (const group of Object.values(ctx.state.groups ?? {})) {
      for (const [where, parent] of Object.entries(group.parents)) {
        if (parent.checklistOnly === "unavailable") runtime.noSubIssues.add(where);
      }
    }
  }
  return runtime.noSubIssues.has(repo);
}

/** Whether an attach is wanted: its parent stands, keeps sub-issues, and the repository has them. */
export function stillAttaching(
  ctx: SyncContext,
  action: { kind: string; groupId?: string; repo?: string },
): boolean {
  if (action.kind !== "attach" && action.kind !== "member_id") return true;
  if (action.groupId === undefined || action.repo === undefined) return true;
  const parent = ctx.state.groups?.[action.groupId]?.parents[action.repo];
  if (!parent || parent.refused !== undefined || parent.checklistOnly !== undefined) return false;
  return !groupRuntime(ctx).said.has(`unavailable:${action.repo}`);
}

/** A group's new issue waits while an old setting's issue of the same marker is not retired. */
function waitsForRetirement(
  ctx: SyncContext,
  action: { kind: string; groupId: string; repo: string },
): boolean {
  return action.kind.endsWith("_create") && markerHeld(ctx, action.groupId, action.repo);
}

/** Parent mode: the group's plan in every repository its members' issues or its parents are in. */
function planParents(ctx: SyncContext, groupId: string, group: GroupRecord, preview: boolean): GroupAction[] {
  const grouping = ctx.config.grouping;
  if (grouping === undefined) return [];
  const byRepo = membersByRepo(ctx, group);
  const underOldParent = attachedToOldParents(ctx);
  const actions: GroupAction[] = [];
  for (const repo of new Set([...byRepo.keys(), ...Object.keys(group.parents)])) {
    actions.push(
      ...planGroup({
        ...groupInRepo(ctx, groupId, group, repo),
        members: byRepo.get(repo) ?? [],
        parent: group.parents[repo],
        minMembers: grouping.min_members ?? DEFAULT_MIN_MEMBERS,
        subIssues: ctx.workflow !== undefined && !withoutSubIssues(ctx, repo),
        underOldParent,
      }),
    );
  }
  const due = actions.filter((a) => !waitsForRetirement(ctx, a) && stillAttaching(ctx, a));
  if (preview) return [...due, ...newParentAttaches(ctx, due, byRepo)];
  // Writes that keep the parent right first; ids and attaches once those are done.
  const first = due.filter((a) => !isAttachWork(a));
  return first.length > 0 ? first : due;
}

/** What both modes' planners are told of a group in one repository (its names, its label, its title engine). */
function groupInRepo(ctx: SyncContext, groupId: string, group: GroupRecord, repo: string) {
  return {
    groupId,
    repo,
    by: group.by,
    key: group.key,
    name: group.by === "asset" ? (ctx.state.assets[group.key]?.name ?? null) : null,
    managedLabel: ctx.policy.managedLabel,
    title: groupRuntime(ctx).title,
  };
}

/** A dry run: what a new parent would get, its members attached (GitHub's 100 at most). */
function newParentAttaches(
  ctx: SyncContext,
  actions: readonly GroupAction[],
  byRepo: ReadonlyMap<string, MemberView[]>,
): GroupAction[] {
  if (!ctx.workflow) return [];
  return actions.flatMap((a) =>
    a.kind !== "group_create"
      ? []
      : (byRepo.get(a.repo) ?? []).slice(0, SUB_ISSUES_MAX).map((m): GroupAction => ({
          kind: "attach",
          groupId: a.groupId,
          repo: m.repo,
          // No number yet: the parent is made first (its module names it "the new parent").
          parentNumber: 0,
          threatId: m.threatId,
          childNumber: m.number,
          childId: m.id ?? 0,
        })),
  );
}

/** Single mode: the group's one issue in each repository its members are routed to. */
function planSingles(ctx: SyncContext, groupId: string, group: GroupRecord): SingleAction[] {
  const byRepo = membersOf(ctx, group);
  const actions: SingleAction[] = [];
  for (const repo of new Set([...byRepo.keys(), ...Object.keys(group.single ?? {})])) {
    actions.push(
      ...planSingle({
        ...groupInRepo(ctx, groupId, group, repo),
        members: byRepo.get(repo) ?? [],
        issue: group.single?.[repo],
        policy: ctx.policy,
      }),
    );
  }
  return actions.filter((a) => !waitsForRetirement(ctx, a));
}

/** A group subject's next actions, from the state as it is now. */
export function planGroupSubject(
  ctx: SyncContext,
  groupId: string,
  opts: GroupPlanOptions = {},
): GroupSubjectAction[] {
  const group = ctx.state.groups?.[groupId];
  if (group === undefined) return [];
  if (group.superseded !== undefined) {
    return planOld(ctx, groupId, group, {
      ...(opts.personOnly ? { personOnly: true } : {}),
      ...(opts.preview ? { eager: true } : {}),
    });
  }
  if (opts.personOnly || !isCurrent(ctx, group)) return [];
  const own =
    ctx.config.grouping?.mode === "single"
      ? planSingles(ctx, groupId, group)
      : planParents(ctx, groupId, group, opts.preview === true);
  return own.length > 0 ? own : planFeatures(ctx, groupId, group);
}

/** Each configured feature's writes for the group's issues, asked once the group's own plan is empty. */
function planFeatures(ctx: SyncContext, groupId: string, group: GroupRecord): FeatureAction[] {
  return groupPlans(ctx, groupId, group);
}

/** The plan after a group's issue found on GitHub is adopted; `waits`: its repository could not be listed. */
export async function planGroupWithAdoption(
  ctx: SyncContext,
  groupId: string,
  allow: (action: GroupSubjectAction) => boolean = () => true,
): Promise<{ actions: GroupSubjectAction[]; waits: boolean }> {
  let actions = planGroupSubject(ctx, groupId).filter(allow);
  const creates = actions.flatMap((a) =>
    a.kind === "group_create" || a.kind === "single_create" ? [{ groupId: a.groupId, repo: a.repo }] : [],
  );
  if (creates.length === 0) return { actions, waits: false };
  const adoption = await adoptExisting(ctx, creates);
  if (adoption.adopted > 0) actions = planGroupSubject(ctx, groupId).filter(allow);
  const allowed = actions.filter((a) => a.kind === "feature" || allowedAfter(adoption, a));
  return { actions: allowed, waits: allowed.length < actions.length };
}

/** Queues a group's subject (new information ends its back-off, as a threat's does). */
function enqueueGroup(ctx: SyncContext, groupId: string): void {
  if (ctx.state.groups?.[groupId] !== undefined) enqueue(ctx, groupId, {}, nowIso(ctx));
}

/** A member changed: the groups that own it are queued (the current one, and a superseded one waiting). */
export function enqueueOwners(ctx: SyncContext, threatId: string): void {
  const current = memberIndex(ctx).get(threatId);
  if (current !== undefined) enqueueGroup(ctx, current);
  for (const groupId of oldOwners(ctx).get(threatId) ?? []) enqueueGroup(ctx, groupId);
}

/** The superseded groups still retiring an issue, by member (an index: no walk of every group per action). */
function oldOwners(ctx: SyncContext): Map<string, string[]> {
  if (ctx.oldGroupMembers) return ctx.oldGroupMembers;
  const index = new Map<string, string[]>();
  for (const [groupId, group] of supersededGroups(ctx)) {
    if (!hasOpenIssue(group)) continue;
    for (const threatId of Object.keys(group.members))
      index.set(threatId, [...(index.get(threatId) ?? []), groupId]);
  }
  ctx.oldGroupMembers = index;
  return index;
}

/** A superseded group was written: a new group of the same marker may have waited for it. */
export function enqueueSuccessor(ctx: SyncContext, groupId: string): void {
  const group = ctx.state.groups?.[groupId];
  if (group?.superseded === undefined) return;
  enqueueGroup(ctx, groupIdOf(group.by, group.key));
}

function hasOpenIssue(group: GroupRecord): boolean {
  return [...Object.values(group.parents), ...Object.values(group.single ?? {})].some(
    (i) => i.retired !== "noted" && i.refused === undefined,
  );
}

/** Every group with something left to do is queued: once per process, and when what issues show changes. */
export function enqueueAllGroups(ctx: SyncContext): void {
  for (const [groupId, group] of Object.entries(ctx.state.groups ?? {})) {
    if (group.superseded === undefined ? isCurrent(ctx, group) : hasOpenIssue(group))
      enqueueGroup(ctx, groupId);
  }
}

/** The members of a group whose own work is due: the group's parent follows them (contract order). */
export function membersAtWork(ctx: SyncContext, groupId: string, nowMs: number): boolean {
  const group = ctx.state.groups?.[groupId];
  // An old setting's issues wait for their carriers in their own plan (plan-old.ts), not here.
  if (group === undefined || group.superseded !== undefined) return false;
  return Object.keys(group.members).some((id) => {
    const entry = ctx.state.queue[id];
    return entry !== undefined && (entry.notBefore === undefined || entry.notBefore <= nowMs);
  });
}
