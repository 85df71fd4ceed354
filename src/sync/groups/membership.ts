import { compileGroupTitle, DEFAULT_GROUP_TITLE, type Config } from "../../config/index.js";
import type { GroupMember, GroupRecord } from "../schema.js";
import { nowIso, type GroupRuntime, type SyncContext } from "../context.js";
import { enqueue } from "../records/queue.js";
import { putGroup } from "../records/state-updates.js";
import { buildMemberIndex } from "../records/group-members.js";
import type { AssetView, ThreatView } from "../render/index.js";
import { noIssueReason, routeFor, type AssetValues } from "../plan/policy.js";
import { groupIdOf, groupKeyOf } from "./group-key.js";

/**
 * Group membership, kept as threats are read: a member is filed under its group's key with what its
 * checklist line shows, so the group's plan needs no read. A group whose members changed is queued.
 */

/** Member titles are kept this long at most (the checklist line is one line). */
const TITLE_KEPT = 200;

/** Member threat id → its group's key, built on first use (records/group-members.ts). */
export function memberIndex(ctx: SyncContext): Map<string, string> {
  return (ctx.groupMembers ??= buildMemberIndex(ctx.state.groups));
}

export function groupRuntime(ctx: SyncContext): GroupRuntime {
  if (ctx.groupRuntime) return ctx.groupRuntime;
  const source = ctx.config.grouping?.title ?? DEFAULT_GROUP_TITLE;
  // Compiled on first use: a cycle with no group issue to write makes no Liquid engine.
  let compiled: ((scope: object) => string) | undefined;
  const title = (scope: object): string => (compiled ??= compileGroupTitle(source))(scope);
  ctx.groupRuntime = { title, said: new Set(), found: new Map() };
  return ctx.groupRuntime;
}

function withoutMember(group: GroupRecord, threatId: string): GroupRecord | undefined {
  const { [threatId]: _gone, ...members } = group.members;
  // A group with no member and no issue is not kept; one with an issue keeps its record.
  const issues = Object.keys(group.parents).length + Object.keys(group.single ?? {}).length;
  if (Object.keys(members).length === 0 && issues === 0) return undefined;
  return { ...group, members };
}

function assetOf(ctx: SyncContext, view: ThreatView): AssetView | null {
  const record = view.assetId ? ctx.state.assets[view.assetId] : undefined;
  return view.assetId && record ? { id: view.assetId, name: record.name, type: record.type } : null;
}

/** What intake kept of the threat's asset for the routes' `where` paths. */
function assetValues(ctx: SyncContext, view: ThreatView): AssetValues {
  return view.assetId ? ctx.state.assets[view.assetId]?.routeValues : undefined;
}

/** Parent mode: a threat with (or eligible for) an issue. Single mode: eligible and without its own, or a member already. */
function isMember(ctx: SyncContext, threatId: string, view: ThreatView, single: boolean): boolean {
  const record = ctx.state.threats.get(threatId);
  const eligible = (): boolean => noIssueReason(view, assetOf(ctx, view), ctx.policy) === null;
  if (!single) return record?.issue !== undefined || eligible();
  if (record?.issue !== undefined || record?.deletedIssue !== undefined) return false;
  return memberIndex(ctx).has(threatId) || eligible();
}

/** Files a threat's new version under its group (or takes it out), before the threat is planned. */
export function noteGroupMember(
  ctx: SyncContext,
  grouping: NonNullable<Config["grouping"]>,
  threatId: string,
  view: ThreatView,
): void {
  const byThreat = memberIndex(ctx);
  const single = grouping.mode === "single";
  const key = isMember(ctx, threatId, view, single) ? groupKeyOf(grouping.by, view) : null;
  const groupId = key === null ? null : groupIdOf(grouping.by, key);
  const before = byThreat.get(threatId);
  if (before !== undefined && before !== groupId) {
    const old = ctx.state.groups?.[before];
    if (old) putGroup(ctx, before, withoutMember(old, threatId));
    if (ctx.state.groups?.[before]) enqueue(ctx, before, {}, nowIso(ctx));
    byThreat.delete(threatId);
  }
  if (groupId === null || key === null) return;
  const asset = assetOf(ctx, view);
  const member: GroupMember = {
    title: (view.title ?? threatId).slice(0, TITLE_KEPT),
    severity: view.severityRank ?? 0,
    ...(single
      ? {
          status: view.status,
          assetId: view.assetId,
          repo: routeFor(view, asset, ctx.policy, assetValues(ctx, view)).repo,
        }
      : {}),
  };
  const group: GroupRecord = ctx.state.groups?.[groupId] ?? {
    by: grouping.by,
    key,
    members: {},
    parents: {},
    mode: single ? "single" : "parent",
  };
  const known = group.members[threatId];
  byThreat.set(threatId, groupId);
  if (known !== undefined && JSON.stringify(known) === JSON.stringify(member)) return;
  putGroup(ctx, groupId, { ...group, members: { ...group.members, [threatId]: member } });
  enqueue(ctx, groupId, {}, nowIso(ctx));
}
