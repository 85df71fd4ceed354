import type { Intent } from "../../../state/index.js";
import type { SyncContext } from "../../context.js";
import { updateThreat } from "../../records/state-updates.js";
import { issueRecord } from "../../transitions/issue-record.js";
import { recurred } from "./transitions.js";

const MARGIN_MS = 5 * 60_000;

/**
 * A later occurrence's create intent (kind `create` naming its `occurrence`, as earlier versions
 * journaled it too): its issue is found by that occurrence's own marker only, never the first
 * one's; found, the threat is mapped to it. Not found: it did not land, and the plan sends it again.
 */
export async function recoverOccurrence(ctx: SyncContext, intent: Intent): Promise<boolean> {
  const occurrence = intent.occurrence ?? 1;
  const since = new Date(Date.parse(intent.startedAt) - MARGIN_MS).toISOString();
  const issue = await ctx.github.findIssueByMarker(intent.repo, intent.threatId, since, occurrence);
  if (!issue) return false;
  updateThreat(ctx, intent.threatId, (record) => recurred(record, issueRecord(issue), occurrence));
  ctx.emit({ type: "intent_found", threatId: intent.threatId, intentId: intent.id });
  return true;
}
