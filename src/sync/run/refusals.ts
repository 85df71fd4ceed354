import { nowIso, type SyncContext } from "../context.js";
import type { EngineAction } from "../actions/index.js";
import { dropIntent, dropQueue, putGroup, updateThreat } from "../records/state-updates.js";
import { groupRetired, parentRefused, singleRefused } from "../transitions/group.js";
import { issueDeleted, refused } from "../transitions/outcome.js";
import { threatLogFields } from "./log-fields.js";
import { isPermanentPlatformRefusal } from "../../platform/index.js";

/**
 * Steps GitHub (or the platform: a 400 or 422) refuses for good are recorded on the threat, not
 * retried; their queue entry and intents are dropped. New work for the threat is planned afresh.
 */

function dropWork(ctx: SyncContext, threatId: string): void {
  dropQueue(ctx, threatId);
  for (const intent of Object.values(ctx.state.intents)) {
    if (intent.threatId === threatId) dropIntent(ctx, intent.id);
  }
  ctx.cache.delete(threatId);
}

function reasonOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 500);
}

export function recordRefusal(ctx: SyncContext, threatId: string, action: string, error: unknown): void {
  const reason = reasonOf(error);
  // Named before the refusal is recorded: the record may keep no issue after it.
  const named = threatLogFields(ctx, threatId);
  updateThreat(ctx, threatId, (record) => refused(record, { action, reason, at: nowIso(ctx) }));
  dropWork(ctx, threatId);
  ctx.emit({ type: "refused", threatId, detail: action });
  ctx.logger.warn(
    { ...named, action, err: error },
    `${isPermanentPlatformRefusal(error) ? "the platform" : "GitHub"} refused this step for good; it is recorded and not retried (see \`threatbridge status\`)`,
  );
}

/** A person deleted the threat's issue: it is no longer managed (`reconcile --recreate` may make it again). */
export function markIssueDeleted(ctx: SyncContext, threatId: string, repo: string, number: number): void {
  updateThreat(ctx, threatId, (record) => issueDeleted(record, { repo, number, at: nowIso(ctx) }));
  dropWork(ctx, threatId);
  ctx.emit({ type: "deleted_issue", threatId, issue: { repo, number } });
  ctx.logger.warn(
    { threat_id: threatId, issue: `${repo}#${number}` },
    "the threat's issue was deleted on GitHub; the threat is no longer managed (`reconcile --recreate` gives it a new issue)",
  );
}

/** A write to a group's own issue refused for good: written no more; answers whether it was one. */
export function recordGroupRefusal(ctx: SyncContext, action: EngineAction, error: unknown): boolean {
  if (!("groupId" in action)) return false;
  const group = ctx.state.groups?.[action.groupId];
  if (group === undefined) return false;
  const reason = reasonOf(error).slice(0, 200);
  const number = "number" in action ? action.number : undefined;
  switch (action.kind) {
    case "group_update":
    case "group_state":
    case "group_full":
      putGroup(ctx, action.groupId, parentRefused(group, action.repo, reason));
      break;
    case "single_update":
    case "single_state":
      putGroup(ctx, action.groupId, singleRefused(group, action.repo, reason));
      break;
    case "group_retire":
    case "group_retire_note":
      putGroup(ctx, action.groupId, groupRetired(group, action.issueKind, action.repo, "noted"));
      break;
    default:
      return false;
  }
  ctx.logger.warn(
    { group: action.groupId, issue: `${action.repo}#${number ?? "?"}`, err: error },
    "GitHub refused a write to a group's issue for good; it is written no more",
  );
  return true;
}
