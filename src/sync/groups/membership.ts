import { compileGroupTitle, DEFAULT_GROUP_TITLE } from "../../config/index.js";
import type { GroupRecord } from "../../state/index.js";
import type { SyncContext } from "../context.js";
import { putGroup } from "../records/state-updates.js";
import type { ThreatView } from "../render/index.js";
import { groupIdOf, groupKeyOf } from "./group-key.js";
import type { GroupRuntime } from "./runtime.js";

/**
 * Group membership, kept as threats are read: each new version of a threat that has (or gets) an
 * issue is filed under its group's key with the title and severity its checklist line shows, so
 * that the per-cycle group pass needs no platform read. A threat whose key changed moves; one
 * with no key, or no issue to come, leaves its group.
 */

/** Member titles are kept this long at most (the checklist line is one line). */
const TITLE_KEPT = 200;

export function groupRuntime(ctx: SyncContext): GroupRuntime {
  if (ctx.groupRuntime) return ctx.groupRuntime;
  const byThreat = new Map<string, string>();
  for (const [groupId, group] of Object.entries(ctx.state.groups ?? {})) {
    for (const threatId of Object.keys(group.members)) byThreat.set(threatId, groupId);
  }
  const source = ctx.config.grouping?.title ?? DEFAULT_GROUP_TITLE;
  ctx.groupRuntime = { byThreat, title: compileGroupTitle(source), said: new Set() };
  return ctx.groupRuntime;
}

function withoutMember(group: GroupRecord, threatId: string): GroupRecord | undefined {
  const { [threatId]: _gone, ...members } = group.members;
  // A group with no member and no parent is not kept; one with a parent keeps its record.
  if (Object.keys(members).length === 0 && Object.keys(group.parents).length === 0) return undefined;
  return { ...group, members };
}

/** Files a threat's new version under its group (or takes it out); nothing when grouping is off. */
export function noteGroupMember(
  ctx: SyncContext,
  threatId: string,
  view: Pick<ThreatView, "title" | "assetId" | "module" | "severityRank">,
  hasIssue: boolean,
): void {
  const grouping = ctx.config.grouping;
  if (grouping === undefined) return;
  const runtime = groupRuntime(ctx);
  const key = hasIssue ? groupKeyOf(grouping.by, view) : null;
  const groupId = key === null ? null : groupIdOf(grouping.by, key);
  const before = runtime.byThreat.get(threatId);
  if (before !== undefined && before !== groupId) {
    const old = ctx.state.groups?.[before];
    if (old) putGroup(ctx, before, withoutMember(old, threatId));
    runtime.byThreat.delete(threatId);
  }
  if (groupId === null || key === null) return;
  const member = {
    title: (view.title ?? threatId).slice(0, TITLE_KEPT),
    severity: view.severityRank ?? 0,
  };
  const group: GroupRecord = ctx.state.groups?.[groupId] ?? {
    by: grouping.by,
    key,
    members: {},
    parents: {},
  };
  const known = group.members[threatId];
  runtime.byThreat.set(threatId, groupId);
  if (known?.title === member.title && known.severity === member.severity) return;
  putGroup(ctx, groupId, { ...group, members: { ...group.members, [threatId]: member } });
}
