import { isPermanentRefusal } from "../../github/index.js";
import type { Intent } from "../schema.js";
import { nowIso, persist, type SyncContext } from "../context.js";
import { enqueue } from "../records/queue.js";
import { intentSubject } from "../records/subject.js";
import { commentPosted, postComment } from "./intents.js";
import { issueRecord } from "../transitions/issue-record.js";
import { markIssueDeleted, recordRefusal } from "./refusals.js";
import { threatLogFields } from "./log-fields.js";
import { intentOwner, recoverFeatureIntent, stepCommented } from "../features/registry.js";
import { resolveGroupCreate } from "../groups/resolve-create.js";
import { retireNoted } from "../groups/supersede.js";
import { dropIntent, putIntent, updateThreat } from "../records/state-updates.js";
import { issueCreated, issueStateIs, issueTransferred } from "../transitions/outcome.js";

/**
 * Resolves write-ahead intents left by a crash or a lost response by reading GitHub, never by
 * writing again. Issues are found with the list endpoint (search's index lags); comments by key.
 */

const MARGIN_MS = 5 * 60_000;

export async function resolveCreate(ctx: SyncContext, intent: Intent): Promise<boolean> {
  const since = new Date(Date.parse(intent.startedAt) - MARGIN_MS).toISOString();
  const issue = await ctx.github.findIssueByMarker(intent.repo, intent.threatId, since);
  if (!issue) return false;
  // Recorded as the create wrote it (open): a person's close made before it was found is then
  // seen as theirs, a verdict, not taken for the connector's own state.
  updateThreat(ctx, intent.threatId, (record) =>
    issueCreated(record, { ...issueRecord(issue), state: "open" }),
  );
  ctx.emit({ type: "intent_found", threatId: intent.threatId, intentId: intent.id });
  return true;
}

async function resolveState(ctx: SyncContext, started: Intent): Promise<void> {
  let intent = started;
  if (intent.number === undefined || intent.target === undefined) return;
  const issue = await ctx.github.getIssue(intent.repo, intent.number);
  if (!issue || issue.state !== intent.target) return; // it did not land: the plan sends it again
  // It landed: the connector's own write; its comment, which no later plan sends, is sent here.
  const target = intent.target;
  updateThreat(ctx, intent.threatId, (record) => issueStateIs(record, target));
  if (issue.repo !== intent.repo || issue.number !== intent.number) {
    // A transferred issue: the comment goes to its new place (a POST is not redirected).
    const known = ctx.state.threats.get(intent.threatId)?.issue;
    if (known && known.repo === intent.repo && known.number === intent.number) {
      updateThreat(ctx, intent.threatId, (record) => issueTransferred(record, known, issue));
      ctx.emit({
        type: "transferred",
        threatId: intent.threatId,
        issue: { repo: issue.repo, number: issue.number },
      });
    }
    intent = { ...intent, repo: issue.repo, number: issue.number };
    putIntent(ctx, intent);
  }
  if (intent.body !== undefined && !(await commentPosted(ctx, intent))) await postComment(ctx, intent);
}

/** A feature's intent: its feature says whether the write landed; one without a `recover` is dropped. */
export async function resolveFeatureIntent(ctx: SyncContext, intent: Intent): Promise<boolean> {
  return recoverFeatureIntent(ctx, intent);
}

async function resolveOne(ctx: SyncContext, intent: Intent): Promise<void> {
  if (intent.kind === "feature" || intentOwner(intent) !== undefined) {
    await resolveFeatureIntent(ctx, intent);
    return;
  }
  // A group's issue not found by its marker did not land: its subject, queued, creates it.
  if (intent.kind === "group_create") await resolveGroupCreate(ctx, intent);
  else if (intent.kind === "create") await resolveCreate(ctx, intent);
  else if (intent.kind === "issue_state") await resolveState(ctx, intent);
  else {
    if (intent.body !== undefined && !(await commentPosted(ctx, intent))) await postComment(ctx, intent);
    // A feature's step comment is on the issue now: its feature marks the step done.
    const step = intent.step;
    if (step !== undefined)
      updateThreat(ctx, intent.threatId, (record) => stepCommented(ctx.config, record, step));
    // A retired group issue's comment (groups/retire-plan.ts): that step is done too.
    else if (intent.number !== undefined) retireNoted(ctx, intent.threatId, intent.repo, intent.number);
  }
}

/** Resolves every unfinished intent of an earlier run; one that cannot be resolved now waits, alone. */
export async function recoverIntents(ctx: SyncContext): Promise<number> {
  const intents = Object.values(ctx.state.intents);
  for (const intent of intents) {
    try {
      await resolveOne(ctx, intent);
    } catch (error) {
      if (isPermanentRefusal(error) && intent.kind === "group_create") {
        // The repository refuses the read for good: the group's next plan meets that itself.
      } else if (isPermanentRefusal(error)) {
        const issue = ctx.state.threats.get(intent.threatId)?.issue;
        if ((error.status === 404 || error.status === 410) && issue && intent.number === issue.number) {
          markIssueDeleted(ctx, intent.threatId, intent.repo, intent.number);
        } else {
          recordRefusal(ctx, intent.threatId, intent.kind, error);
        }
      } else {
        ctx.emit({ type: "intent_unresolved", threatId: intent.threatId, intentId: intent.id });
        ctx.logger.warn(
          {
            intent: intent.id,
            ...threatLogFields(ctx, intent.threatId),
            err: error,
          },
          "an unfinished write could not be resolved yet; its threat waits, the rest goes on",
        );
        continue;
      }
    }
    dropIntent(ctx, intent.id);
    // A group's work goes on from its record (a threat's entry is still queued).
    if (intentSubject(intent) === "group" && ctx.state.groups?.[intent.threatId] !== undefined) {
      enqueue(ctx, intent.threatId, {}, nowIso(ctx));
    }
    ctx.emit({ type: "intent_recovered", threatId: intent.threatId, intentId: intent.id });
    await persist(ctx);
  }
  return intents.length;
}
