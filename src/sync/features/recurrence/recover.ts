import type { Intent } from "../../schema.js";
import { issueRecord } from "../../transitions/issue-record.js";
import { recurred } from "./transitions.js";
import type { FeatureContext } from "../types.js";

const MARGIN_MS = 5 * 60_000;

/** A later occurrence's create intent: found by that occurrence's own marker only, else sent again. */
export async function recoverOccurrence(ctx: FeatureContext, intent: Intent): Promise<boolean> {
  const occurrence = intent.markerNumber ?? 1;
  const since = new Date(Date.parse(intent.startedAt) - MARGIN_MS).toISOString();
  const issue = await ctx.github.findIssueByMarker(intent.repo, intent.threatId, since, occurrence);
  if (!issue) return false;
  ctx.updateThreat(intent.threatId, (record) => recurred(record, issueRecord(issue), occurrence));
  ctx.emit({ type: "intent_found", threatId: intent.threatId, intentId: intent.id });
  return true;
}
