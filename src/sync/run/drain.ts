import { isGone, isPermanentRefusal } from "../../github/index.js";
import { isPermanentPlatformRefusal, isPlatformPause } from "../../platform/index.js";
import { isRecord } from "../../shared/json.js";
import { checkpoint, nowIso, persist, type SyncContext } from "../context.js";
import type { Sleep } from "../../shared/clock.js";
import { isGitHubWrite, priorityOf, type EngineAction } from "../actions/index.js";
import { runAction } from "./run-action.js";
import { absorbAsset } from "../intake/platform.js";
import { githubLink, toThreatView } from "../render/normalize.js";

import { planFor } from "../plan/plan-for.js";
import { prepareRelated } from "../related/index.js";
import { plannedFromRecord, pluggedFor } from "../features/registry.js";
import { dueWork, type DueItem } from "../plan/queue-order.js";
import type { QueueClass } from "../plan/queue-class.js";
import type { Subject, SubjectKind } from "../records/subject.js";
import { anyGroupStored } from "../records/group-members.js";
import {
  enqueueOwners,
  enqueueSuccessor,
  membersAtWork,
  planGroupSubject,
  planGroupWithAdoption,
  stillAttaching,
} from "../groups/plan-subject.js";
import { markIssueDeleted, recordGroupRefusal, recordRefusal } from "./refusals.js";
import { threatLogFields } from "./log-fields.js";
import { dropQueue, putQueue, putThreat, updateThreat } from "../records/state-updates.js";
import type { ThreatRecord } from "../schema.js";
import { attemptFailed, backedOff } from "../transitions/due-work.js";
import { refusalCleared, threatGone, threatRead } from "../transitions/outcome.js";

/**
 * Carries out the queue in priority order, one subject at a time: plan, carry out, plan again until
 * empty. A failure backs the entry off and moves on: one bad item never stops the others.
 */

const MAX_ROUNDS = 6;

export interface DrainOptions {
  /** Epoch ms after which no further entry is started (`sync --max-duration`). */
  deadline?: number;
  /** Restricts the actions carried out (`reconcile` repairs the mapping only). */
  allow?: (action: EngineAction) => boolean;
  /** The kind of subject carried out: `threat` mid-walk, `group` for a changed grouping's people's changes. */
  only?: SubjectKind;
  signal?: AbortSignal;
  /** Retry entries still backing off from an earlier failure (`sync`: the operator asked for it now). */
  ignoreBackoff?: boolean;
  /**
   * `run`: a GitHub write waits here for the write budget's slot, a wait `signal` ends; the subject
   * is then deferred, so a person's verdict never waits behind the budget (contract, "GitHub webhooks").
   */
  waitForSlot?: Sleep;
  /**
   * Only work of a queue class at most this, the rest staying queued: `run` drains people's
   * verdicts between two pages of a read and before a poll (contract, "Priorities").
   */
  upTo?: QueueClass;
  /**
   * `run`: a subject that meets the platform's pause is put back until it ends, no attempt counted,
   * and the drain goes on with the others (spec "Errors" rule 1).
   */
  deferPlatformPause?: boolean;
}

export interface DrainResult {
  done: number;
  failed: number;
  deferred: number;
}

/** The threat at hand for its plan: a queued create's kept view, else read from the platform. */
export async function ensureLoaded(
  ctx: SyncContext,
  threatId: string,
  record: ThreatRecord | undefined = ctx.state.threats.get(threatId),
): Promise<void> {
  if (!record || record.gone || ctx.cache.has(threatId)) return;
  const pending = ctx.state.queue[threatId]?.pending;
  if (pending) {
    // A queued create keeps its view in the state: no second read.
    ctx.cache.set(threatId, { view: pending.view, link: pending.link });
    await ensureAsset(ctx, pending.view.assetId);
    return;
  }
  const threat = await ctx.platform.getThreat(threatId);
  if (threat === null) {
    // 404: its asset was removed (spec, GET /v1/threats/{id}).
    putThreat(ctx, threatId, threatGone(record), record);
    return;
  }
  const read = threatRead(record, { status: threat.status, updatedAt: threat.updated_at });
  putThreat(ctx, threatId, read, record);
  const view = toThreatView(threat, ctx.config.fields.threat, ctx.policy.wherePaths.threat);
  ctx.cache.set(threatId, { view, link: githubLink(threat) });
  await ensureAsset(ctx, view.assetId);
}

/** An asset the stream has not delivered (yet) is read once, so that the issue can name it. */
async function ensureAsset(ctx: SyncContext, assetId: string | null): Promise<void> {
  if (assetId === null || ctx.state.assets[assetId]) return;
  const asset = await ctx.platform.getAsset(assetId);
  if (asset) absorbAsset(ctx, asset);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message.slice(0, 500) : "unknown error";
}

/** The one planning entry of the drain: a group's plan, or a threat's with its platform version at hand. */
async function planSubject(
  ctx: SyncContext,
  subject: Subject,
  fromRecord: boolean,
  allow: (action: EngineAction) => boolean,
): Promise<{ actions: EngineAction[]; waits: boolean }> {
  const threatId = subject.id;
  if (subject.kind === "group") return planGroupWithAdoption(ctx, threatId, allow);
  // No read before a plan for time-driven work, for a feature's step the record alone decides
  // (`plannedFromRecord`), or for a person's change on a mapped, live threat (the planner needs
  // only the status the state holds; the verdict's PATCH answers the threat).
  const entry = ctx.state.queue[threatId];
  if (!fromRecord && entry?.timed !== true && !ctx.cache.has(threatId)) {
    const record = ctx.state.threats.get(threatId);
    const awaitsVerdict = entry?.person !== undefined && record?.issue !== undefined && !record.gone;
    if (!awaitsVerdict) await ensureLoaded(ctx, threatId, record);
  }
  return { actions: planFor(ctx, threatId).filter(allow), waits: false };
}

async function processOne(
  ctx: SyncContext,
  subject: Subject,
  opts: DrainOptions,
): Promise<"done" | "deferred"> {
  const threatId = subject.id;
  // A group's parent follows its members' own work (contract, "Groups"): it waits for them.
  if (subject.kind === "group" && membersAtWork(ctx, threatId, ctx.clock.now())) return "deferred";
  let settled = false;
  let waits = false;
  // A feature's step due now that the record alone decides (features/types.ts `plannedFromRecord`)
  // is planned with no read, and so is what follows it: no read for the step, nor after it.
  const fromRecord =
    subject.kind === "threat" &&
    pluggedFor(ctx.config).plannedFromRecord.length > 0 &&
    plannedFromRecord(ctx, threatId, ctx.clock.now());
  const allow = allowed(opts);
  for (let round = 0; round < MAX_ROUNDS && !settled; round += 1) {
    const planned = await planSubject(ctx, subject, fromRecord, allow);
    waits = planned.waits;
    const actions = planned.actions;
    if (actions.length === 0) {
      settled = true;
      break;
    }
    // A body about to be written lists the asset's related assets: read them first (once per asset).
    if (ctx.related && subject.kind === "threat")
      await prepareRelated(ctx.related, ctx.cache.get(threatId)?.view.assetId, actions);
    for (const action of actions) {
      if (subject.kind === "group" && !stillAttaching(ctx, action)) continue;
      // The write budget is asked only where the drain has a deadline or waits for its slots.
      if (
        opts.deadline !== undefined &&
        isGitHubWrite(action) &&
        ctx.github.budget.nextSlotAt() > opts.deadline
      ) {
        return "deferred";
      }
      if (opts.waitForSlot && isGitHubWrite(action) && !(await slotCame(ctx, opts))) return "deferred";
      try {
        await runAction(ctx, action);
      } catch (error) {
        if (!(await resolvedRefusal(ctx, subject, action, error))) throw error;
        // A threat's refused step ends its work; a group's other issues go on (planned again).
        if (subject.kind === "threat") return "done";
      } finally {
        // The subject changed: its groups follow it, and a new group waits on an old one.
        if (subject.kind === "group") enqueueSuccessor(ctx, threatId);
        else if (anyGroupStored(ctx.state.groups)) enqueueOwners(ctx, threatId);
      }
    }
  }
  if (!settled)
    throw new Error(`the plan for ${subject.kind} ${threatId} did not settle in ${MAX_ROUNDS} rounds`);
  if (ctx.state.threats.get(threatId)?.refused) updateThreat(ctx, threatId, refusalCleared);
  if (waits) {
    // A create held back (its group issues not listed): tried again after a back-off.
    const entry = ctx.state.queue[threatId];
    if (entry) putQueue(ctx, threatId, backedOff(entry, ctx.clock.now()));
    return "deferred";
  }
  // A drain of some actions only leaves the entry for the full drain, which plans the rest.
  if (!opts.allow && opts.upTo === undefined) dropQueue(ctx, threatId);
  ctx.cache.delete(threatId);
  await checkpoint(ctx);
  return "done";
}

/** The actions a drain carries out: what `allow` lets through, of the classes `upTo` names. */
function allowed(opts: DrainOptions): (action: EngineAction) => boolean {
  const { allow, upTo } = opts;
  if (upTo === undefined) return allow ?? (() => true);
  return (action) => priorityOf([action]) <= upTo && (allow === undefined || allow(action));
}

/** Whether the write budget's next slot came before `signal` ended the wait (`waitForSlot`). */
async function slotCame(ctx: SyncContext, opts: DrainOptions): Promise<boolean> {
  const { waitForSlot, signal } = opts;
  if (waitForSlot === undefined || signal === undefined) return true;
  const ms = ctx.github.budget.nextSlotAt() - ctx.clock.now();
  if (ms <= 0) return true;
  try {
    await waitForSlot(ms, signal);
  } catch (error) {
    if (!signal.aborted) throw error;
  }
  return !signal.aborted;
}

/**
 * A step GitHub refused for good is never retried blindly: a 404/410 on the issue is a person's
 * delete; any other permanent refusal is recorded on the threat. The other threats go on.
 */
async function resolvedRefusal(
  ctx: SyncContext,
  subject: Subject,
  action: EngineAction,
  error: unknown,
): Promise<boolean> {
  const threatId = subject.id;
  if (subject.kind === "group") {
    // A group's issue refused for good is written no more (and never made twice).
    if (!isPermanentRefusal(error) || !recordGroupRefusal(ctx, action, error)) return false;
  } else if (action.kind === "update" && isGone(error)) {
    const issue = ctx.state.threats.get(threatId)?.issue;
    markIssueDeleted(ctx, threatId, issue?.repo ?? action.repo, issue?.number ?? action.number);
  } else if (isPermanentRefusal(error) || isPermanentPlatformRefusal(error)) {
    recordRefusal(ctx, threatId, action.kind, error);
  } else {
    return false;
  }
  await checkpoint(ctx);
  return true;
}

/** Worth another try in this drain: a rate limit, or an unknown outcome that GitHub shows did not land. */
function worthRetryingNow(error: unknown): boolean {
  return isRecord(error) && (error["code"] === "rate_limited" || error["code"] === "outcome_unknown");
}

/** The process is stopping and the request was not sent or was cut: the work stays queued as it was. */
export function isStopped(error: unknown): boolean {
  return isRecord(error) && (error["code"] === "stopped" || error["code"] === "platform_stopped");
}

/** When the platform's pause `error` met ends (spec "Errors" rule 1), or null. */
function platformPauseEnd(ctx: SyncContext, error: unknown): number | null {
  if (!isPlatformPause(error)) return null;
  return ctx.platform.stats().notBefore ?? null;
}

/** Passes over the queue while entries meet a rate limit (each pass waits on the paused budget). */
const MAX_PASSES = 5;

/** Rounds of the drain over the work its own writes queued (a member's group, a group's members' links). */
const MAX_FOLLOW_UPS = 4;

/** The groups among the due subjects, by their plans' queue classes, after every threat's work. */
function ordered(ctx: SyncContext, due: DueItem[], upTo: QueueClass | undefined): Subject[] {
  // The threats are kept by `upTo` already (dueSubjects); a group's class is known once it is planned.
  const threats = due.filter((d) => d.kind === "threat");
  const groups = due.filter((d) => d.kind === "group");
  if (groups.length === 0) return threats;
  const rank = new Map(groups.map((g) => [g.id, priorityOf(planGroupSubject(ctx, g.id))]));
  const byClass = groups
    .filter((g) => upTo === undefined || (rank.get(g.id) ?? 0) <= upTo)
    .sort((a, b) => (rank.get(a.id) ?? 0) - (rank.get(b.id) ?? 0) || a.entry.seq - b.entry.seq);
  return [...threats, ...byClass];
}

/** The subjects due now (the kind each `dueWork` item already says), in the order they are done. */
function dueSubjects(ctx: SyncContext, opts: DrainOptions, attempted: ReadonlySet<string>): Subject[] {
  const nowMs = opts.ignoreBackoff ? Number.POSITIVE_INFINITY : ctx.clock.now();
  const { only, upTo } = opts;
  const due = dueWork(ctx.state, nowMs, {
    ...(upTo === undefined ? {} : { upTo }),
    keep: (d) => !attempted.has(d.id) && (only === undefined || d.kind === only),
  });
  return ordered(ctx, due, upTo);
}

export async function drainQueue(ctx: SyncContext, opts: DrainOptions = {}): Promise<DrainResult> {
  const result: DrainResult = { done: 0, failed: 0, deferred: 0 };
  const attempted = new Set<string>();
  let stopped = false;
  // The work this drain's own writes queued is carried out by the same drain, after the rest.
  for (let round = 0; round < MAX_FOLLOW_UPS && !stopped; round += 1) {
    const subjects = dueSubjects(ctx, opts, attempted);
    if (subjects.length === 0) break;
    for (const subject of subjects) attempted.add(subject.id);
    stopped = await drainSubjects(ctx, opts, subjects, result);
  }
  await persist(ctx);
  return result;
}

/** One round over `subjects`, in order; answers whether the process is stopping. */
async function drainSubjects(
  ctx: SyncContext,
  opts: DrainOptions,
  first: Subject[],
  result: DrainResult,
): Promise<boolean> {
  let limited: Subject[] = [];
  let stopped = false;
  for (let pass = 0; pass < MAX_PASSES && !stopped; pass += 1) {
    const subjects = pass === 0 ? first : limited;
    limited = [];
    for (const subject of subjects) {
      const threatId = subject.id;
      if (
        stopped ||
        opts.signal?.aborted ||
        (opts.deadline !== undefined && ctx.clock.now() >= opts.deadline)
      ) {
        result.deferred += 1;
        continue;
      }
      // An intent not resolved yet: this subject waits for it, the others go on.
      if (Object.values(ctx.state.intents).some((i) => i.threatId === threatId)) {
        result.deferred += 1;
        continue;
      }
      try {
        const outcome = await processOne(ctx, subject, opts);
        result[outcome === "done" ? "done" : "deferred"] += 1;
      } catch (error) {
        if (isStopped(error)) {
          // No back-off and no attempt counted: the next start does it at once.
          result.deferred += 1;
          stopped = true;
          continue;
        }
        const pausedUntil = opts.deferPlatformPause ? platformPauseEnd(ctx, error) : null;
        if (pausedUntil !== null) {
          // Not a failure: the platform said when. The subject goes once the pause ends.
          const entry = ctx.state.queue[threatId];
          if (entry) putQueue(ctx, threatId, { ...entry, notBefore: pausedUntil });
          result.deferred += 1;
          continue;
        }
        const failed = ctx.state.queue[threatId];
        if (failed) putQueue(ctx, threatId, attemptFailed(failed, describe(error)));
        if (worthRetryingNow(error) && pass < MAX_PASSES - 1) {
          limited.push(subject);
          ctx.emit({ type: "rate_limited", threatId });
          continue;
        }
        result.failed += 1;
        ctx.emit({ type: "failed", threatId, detail: describe(error) });
        const entry = ctx.state.queue[threatId];
        if (entry) putQueue(ctx, threatId, backedOff(entry, ctx.clock.now()));
        ctx.logger.warn(
          { ...threatLogFields(ctx, threatId), err: error, at: nowIso(ctx) },
          "work failed; it is retried later",
        );
        await checkpoint(ctx);
      }
    }
    if (limited.length === 0) break;
  }
  return stopped;
}
