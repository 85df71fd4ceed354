import type { IssueSnapshot } from "../../github/index.js";
import { nowIso, type SyncContext } from "../context.js";
import { createAction } from "../actions/create.js";
import { updateAction } from "../actions/update.js";
import { verdictAction } from "../actions/verdict.js";
import type { EngineAction } from "../actions/index.js";
import type { ActionOf } from "../actions/types.js";
import { issueFound, pluggedFor } from "../features/registry.js";
import { enqueueOwners } from "../groups/plan-subject.js";
import { anyGroupStored } from "../records/group-members.js";
import { dropPending, dropPerson, updateThreat } from "../records/state-updates.js";
import type { DryRunRecord } from "../render/dry-run-record.js";
import { applyToRecords } from "./run-action.js";
import { moduleOf, settledAsAsked, type AskedIo, type Settlement } from "../actions/index.js";
import { issueAsAsked } from "../actions/as-asked.js";
import { subjectKind } from "../records/subject.js";

/**
 * What a subject's writes bring with them, as a dry run shows it (contract, "Workflow"): each write
 * is taken as answered as asked, in the dry run's unsaved state, and the subject planned again. The
 * core answers its create, close, reopen and verdict; every other kind its module (`asAsked`).
 */

/** The number of an issue a dry run would create: far past any number GitHub gives an issue. */
export const NEW_ISSUE = Number.MAX_SAFE_INTEGER;

type CreateAction = ActionOf<"create">;

/** The milestone a write would make first where the repository lacks it, once per repository and title. */
async function madeMilestone(
  ctx: SyncContext,
  action: EngineAction,
  shown: Set<string>,
): Promise<DryRunRecord | null> {
  const wanted = moduleOf(action).milestoneOf?.(action) ?? null;
  if (wanted === null || !ctx.workflow) return null;
  const key = `${wanted.repo.toLowerCase()}\n${wanted.title}`;
  if (shown.has(key)) return null;
  shown.add(key);
  let has: boolean | null;
  try {
    has = await ctx.workflow.hasMilestone(wanted.repo, wanted.title);
  } catch {
    // A read that fails: the write's own line stands; the sync makes the milestone as it goes.
    return null;
  }
  if (has !== false) return null;
  return {
    action: "milestone",
    threat_id: "threatId" in action ? action.threatId : action.groupId,
    repository: wanted.repo,
    detail: `milestone "${wanted.title}"`,
  };
}

/** An issue as a write would leave it: what GitHub answers, as far as the record keeps it. */
function snapshot(
  ctx: SyncContext,
  threatId: string,
  fields: Pick<IssueSnapshot, "repo" | "number" | "id" | "url" | "state">,
): IssueSnapshot {
  return issueAsAsked({ nowMs: ctx.clock.now() }, threatId, fields);
}

/** The state as the create's answer would leave it: the threat's issue made (and found by the features). */
function answeredCreate(ctx: SyncContext, create: CreateAction): void {
  const issue: IssueSnapshot = {
    ...snapshot(ctx, create.threatId, {
      repo: create.repo,
      number: NEW_ISSUE,
      // Its id is known from the create's answer: an attach needs no read of it first.
      id: NEW_ISSUE,
      url: "",
      state: "open",
    }),
    title: create.title,
    body: create.body,
    labels: create.labels,
    assignees: create.assignees,
  };
  const settled = createAction.settle(create, { issue, minimal: false, milestone: null });
  const found = settled.found;
  const finding = found !== undefined && pluggedFor(ctx.config).onIssueFound.length > 0;
  updateThreat(ctx, create.threatId, (record) => {
    const made = settled.record ? settled.record(record) : record;
    return finding ? issueFound(ctx.config, made, found) : made;
  });
  dropPending(ctx, create.threatId);
}

/** The state as a close's or reopen's answer would leave it. */
function answeredState(ctx: SyncContext, update: ActionOf<"update">): void {
  const known = ctx.state.threats.get(update.threatId)?.issue;
  if (update.state === undefined || !known) return;
  const issue = snapshot(ctx, update.threatId, {
    repo: update.repo,
    number: update.number,
    id: known.id ?? null,
    url: known.url,
    state: update.state,
  });
  const settled = updateAction.settle(update, { issue, commented: update.comment !== undefined });
  if (settled.record) updateThreat(ctx, update.threatId, settled.record);
}

/** The state as a verdict's answer would leave it: the platform holding the status sent. */
function answeredVerdict(ctx: SyncContext, verdict: ActionOf<"verdict">): void {
  const answer = {
    id: verdict.threatId,
    status: verdict.status,
    updated_at: nowIso(ctx),
    external_references: [],
  };
  const settled = verdictAction.settle(verdict, { gone: false, answer });
  if (settled.record) updateThreat(ctx, verdict.threatId, settled.record);
  dropPerson(ctx, verdict.threatId);
  const cached = ctx.cache.get(verdict.threatId);
  if (cached)
    ctx.cache.set(verdict.threatId, { ...cached, view: { ...cached.view, status: verdict.status } });
}

/** What a dry run's module answers are made with: reads only, the time, the new issue's number. */
function askedIo(ctx: SyncContext): AskedIo {
  return { github: ctx.github, platform: ctx.platform, nowMs: ctx.clock.now(), newIssue: NEW_ISSUE };
}

/** A core write whose answer the dry run makes itself: a create, a close or a reopen, a verdict. */
function answeredCore(ctx: SyncContext, action: EngineAction): boolean {
  if (action.kind === "create") answeredCreate(ctx, action);
  else if (action.kind === "update" && action.state !== undefined) answeredState(ctx, action);
  else if (action.kind === "verdict") answeredVerdict(ctx, action);
  else return false;
  return true;
}

export interface FollowUps {
  /** The milestone a write makes first (a create's, a feature's step's), if it makes one. */
  before(action: EngineAction): Promise<DryRunRecord | null>;
  /** Takes a planned write as answered as asked, in the dry run's state; answers whether it could. */
  answer(subjectId: string, action: EngineAction): Promise<boolean>;
}

export function dryRunFollowUps(ctx: SyncContext): FollowUps {
  const milestones = new Set<string>();
  return {
    before: (action) => madeMilestone(ctx, action, milestones),
    async answer(subjectId, action) {
      if (answeredCore(ctx, action)) {
        if (anyGroupStored(ctx.state.groups)) enqueueOwners(ctx, subjectId);
        return true;
      }
      let settled: Settlement | null;
      try {
        settled = await settledAsAsked(action, askedIo(ctx));
      } catch {
        // A read that fails: the write's own line stands; the sync finds out what follows it.
        return false;
      }
      if (settled === null) return false;
      applyToRecords(ctx, subjectId, settled);
      if (subjectKind(subjectId) === "threat" && anyGroupStored(ctx.state.groups))
        enqueueOwners(ctx, subjectId);
      return true;
    },
  };
}
