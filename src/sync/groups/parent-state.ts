import type { GroupParent } from "../schema.js";
import { groupMarkerFor } from "../../shared/index.js";
import type { SyncContext } from "../context.js";
import { putGroup } from "../records/state-updates.js";
import { groupRuntime } from "./membership.js";

/** A group's parent as the state holds it, changed only here (parent mode). */

export function parentOf(ctx: SyncContext, groupId: string, repo: string): GroupParent | undefined {
  return ctx.state.groups?.[groupId]?.parents[repo];
}

export function setParent(ctx: SyncContext, groupId: string, repo: string, parent: GroupParent): void {
  const group = ctx.state.groups?.[groupId];
  if (group) putGroup(ctx, groupId, { ...group, parents: { ...group.parents, [repo]: parent } });
}

/** Logs a fact once per process (a repository without sub-issues, a full parent). */
export function sayOnce(ctx: SyncContext, key: string, fields: object, message: string): void {
  const runtime = groupRuntime(ctx);
  if (runtime.said.has(key)) return;
  runtime.said.add(key);
  ctx.logger.warn(fields, message);
}

export function markerOf(ctx: SyncContext, groupId: string): string | null {
  const group = ctx.state.groups?.[groupId];
  return group ? groupMarkerFor(group.by, group.key) : null;
}
