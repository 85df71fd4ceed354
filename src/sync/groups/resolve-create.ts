import { groupMarkerFor } from "../../shared/index.js";
import type { Intent } from "../schema.js";
import type { SyncContext } from "../context.js";
import { parentMade } from "../transitions/group.js";
import { markerOf, parentOf, setParent } from "./parent-state.js";
import { recordCreated } from "./single-members.js";
import { modeOf } from "./supersede.js";

/** A group issue's create whose answer was lost: looked for by the group's marker, never resent first. */

const MARGIN_MS = 5 * 60_000;

export async function resolveGroupCreate(ctx: SyncContext, intent: Intent): Promise<boolean> {
  // The mode the group was made under: its record may have been superseded since (supersede.ts).
  const made = ctx.state.groups?.[intent.threatId];
  if (made && modeOf(made) === "single") return resolveSingleCreate(ctx, intent);
  const marker = markerOf(ctx, intent.threatId);
  if (marker === null || !ctx.workflow) return false;
  const since = new Date(Date.parse(intent.startedAt) - MARGIN_MS).toISOString();
  const issue = await ctx.workflow.findGroupParent(intent.repo, marker, since);
  if (!issue) return false;
  // Unknown content: the next pass writes the checklist as it is then.
  if (parentOf(ctx, intent.threatId, intent.repo) === undefined) {
    setParent(ctx, intent.threatId, intent.repo, parentMade(issue, ""));
  }
  ctx.emit({ type: "intent_found", threatId: intent.threatId, intentId: intent.id });
  return true;
}

/** A lost create of a single-mode issue, resolved by its marker (as a parent's). */
async function resolveSingleCreate(ctx: SyncContext, intent: Intent): Promise<boolean> {
  const { threatId: groupId, repo } = intent;
  const group = ctx.state.groups?.[groupId];
  if (!group || !ctx.workflow) return false;
  const since = new Date(Date.parse(intent.startedAt) - MARGIN_MS).toISOString();
  const issue = await ctx.workflow.findGroupParent(repo, groupMarkerFor(group.by, group.key), since);
  if (!issue) return false;
  if (group.single?.[repo] === undefined) recordCreated(ctx, groupId, repo, issue, "");
  ctx.emit({ type: "intent_found", threatId: groupId, intentId: intent.id });
  return true;
}
