import type { Intent } from "../state/index.js";
import { count, persist, type SyncContext } from "./context.js";
import { commentKey, issueRecord } from "./intents.js";

/**
 * Resolves write-ahead intents left by a crash or a lost response, by reading GitHub — never by
 * writing again. Issues are found with the list endpoint (not search, whose index lags).
 */

const MARGIN_MS = 5 * 60_000;

export async function resolveCreate(ctx: SyncContext, intent: Intent): Promise<boolean> {
  const since = new Date(Date.parse(intent.startedAt) - MARGIN_MS).toISOString();
  const issue = await ctx.github.findIssueByMarker(intent.repo, intent.threatId, since);
  if (!issue) return false;
  const record = ctx.state.threats[intent.threatId];
  if (record) record.issue = issueRecord(issue);
  count(ctx, "intents_resolved_found");
  return true;
}

export async function resolveComment(ctx: SyncContext, intent: Intent): Promise<boolean> {
  if (intent.number === undefined) return false;
  const key = commentKey(intent.id);
  const comments = await ctx.github.listComments(intent.repo, intent.number);
  return comments.some((c) => c.body.includes(key));
}

async function resolveState(ctx: SyncContext, intent: Intent): Promise<void> {
  if (intent.number === undefined || intent.target === undefined) return;
  const issue = await ctx.github.getIssue(intent.repo, intent.number);
  const record = ctx.state.threats[intent.threatId];
  // It landed: it was the connector's own write, not a person's change.
  if (issue && issue.state === intent.target && record?.issue) record.issue.state = intent.target;
}

/** Resolves every unfinished intent from an earlier run; the queue still holds their work. */
export async function recoverIntents(ctx: SyncContext): Promise<number> {
  const intents = Object.values(ctx.state.intents);
  for (const intent of intents) {
    if (intent.kind === "create") await resolveCreate(ctx, intent);
    else if (intent.kind === "issue_state") await resolveState(ctx, intent);
    else await resolveComment(ctx, intent);
    delete ctx.state.intents[intent.id];
    count(ctx, "intents_recovered");
    await persist(ctx);
  }
  return intents.length;
}
