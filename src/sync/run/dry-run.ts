import type { Threat } from "../../platform/index.js";
import type { SyncContext } from "../context.js";
import type { DryRunRecord } from "../render/dry-run-record.js";

export type { DryRunRecord } from "../render/dry-run-record.js";
import { ensureLoaded } from "./drain.js";
import { dryRunFollowUps, NEW_ISSUE, type FollowUps } from "./dry-run-as-asked.js";
import { plannedFromRecord } from "../features/registry.js";
import { severityName, toThreatView } from "../render/normalize.js";
import { describeAction, isGitHubWrite, type EngineAction } from "../actions/index.js";
import type { Action } from "../plan/plan.js";
import { planFor } from "../plan/plan-for.js";
import { prepareRelated, relatedRecord, writesBody } from "../related/index.js";
import { countNoIssue, type NoIssueCounts } from "../plan/policy-counts.js";
import { orderedQueue } from "../plan/queue-order.js";
import { subjectKind } from "../records/subject.js";
import { planGroupSubject } from "../groups/plan-subject.js";
import type { AssetView, ThreatView } from "../render/index.js";
import type { EngineObserver } from "../../shared/index.js";
import { placedRule, placementOf } from "../plan/route-placed.js";

/** Dry run (contract: "prints every action it would take, one line each"): records, nothing written. */

function describe(error: unknown): string {
  return error instanceof Error ? error.message.slice(0, 500) : "unknown error";
}

/** An action's lines: what its module says of it, then the audit lines the same write makes after it. */
function recordsFor(ctx: SyncContext, subjectId: string, action: EngineAction): DryRunRecord[] {
  const { hidden, action: named, then = [], ...described } = describeAction(action);
  if (hidden) return [];
  const threatId = "threatId" in action ? action.threatId : subjectId;
  const line: DryRunRecord = { action: named ?? action.kind, threat_id: threatId };
  if ("repo" in action) line.repository = action.repo;
  if ("number" in action) line.issue = action.number;
  if (subjectKind(subjectId) === "threat") {
    const view = ctx.cache.get(threatId)?.view;
    const severity = severityName(view?.severityRank ?? ctx.state.threats.get(threatId)?.severity ?? null);
    if (severity !== null) line.severity = severity;
    // The platform's own title: the rendered one is escaped for GitHub (zero-width spaces).
    if (view?.title) line.title = view.title;
  }
  if (action.kind === "create") {
    const placed = placementOf(ctx.state.threats.get(threatId));
    if (placed) line.route = placedRule(placed);
  }
  const record: DryRunRecord = { ...line, ...described };
  // An issue the dry run would create has no number yet: the line names its repository only.
  if (record.issue === NEW_ISSUE) delete record.issue;
  const { labels: _labels, assignees: _assignees, title: _title, ...where } = record;
  return [record, ...then.map((more) => ({ ...where, ...more }))];
}

/** What a threat would do next: its version read first unless it is planned from the record. */
async function threatPlan(ctx: SyncContext, threatId: string): Promise<Action[] | null> {
  try {
    // A feature's step the record alone decides is planned with no read (as in the drain).
    if (!plannedFromRecord(ctx, threatId, ctx.clock.now())) await ensureLoaded(ctx, threatId);
  } catch (error) {
    ctx.dryRun?.print({ action: "error", threat_id: threatId, detail: describe(error) });
    return null;
  }
  return planFor(ctx, threatId);
}

export async function printQueue(
  ctx: SyncContext,
  allow?: (action: EngineAction) => boolean,
): Promise<number> {
  let lines = 0;
  const print = (record: DryRunRecord, githubWrite: boolean): void => {
    lines += 1;
    ctx.dryRun?.print(record, githubWrite);
  };
  // What the writes bring with them in the same drain; not in `reconcile` (mapping repairs only).
  const followUps = allow === undefined ? dryRunFollowUps(ctx) : null;
  // Every subject in the drain's order; each further pass takes the subjects another's answered
  // writes queued, as the drain's follow-up rounds do. A line already printed is not printed again.
  const plannedUnder = new Map<string, unknown>();
  const shown = new Set<string>();
  for (let pass = 0; pass < (followUps ? MAX_PASSES : 1); pass += 1) {
    let planned = false;
    for (const id of orderedQueue(ctx.state, Number.POSITIVE_INFINITY)) {
      if (plannedUnder.has(id) && plannedUnder.get(id) === ctx.state.queue[id]) continue;
      planned = true;
      await printSubject(ctx, id, print, followUps, allow, shown);
      plannedUnder.set(id, ctx.state.queue[id]);
    }
    if (!planned) break;
  }
  return lines;
}

/** How many times the queue is walked for subjects that others' answered writes queued. */
const MAX_PASSES = 4;

/** How many times a subject is planned again after its writes are taken as answered (longer than any chain). */
const MAX_ROUNDS = 12;

/** A write as told apart from the subject's others: listed once, however often it is planned again. */
function lineKey(subjectId: string, action: EngineAction): string {
  return JSON.stringify([
    subjectId,
    action.kind,
    action.kind === "feature" ? `${action.feature}.${action.step}` : null,
    "threatId" in action ? action.threatId : null,
    "repo" in action ? action.repo : null,
    "number" in action ? action.number : null,
    "state" in action ? action.state : null,
  ]);
}

/**
 * One subject's lines as the drain would carry it out: planned, each write taken as answered as
 * asked, planned again until nothing new follows. A write planned again is listed once.
 */
async function printSubject(
  ctx: SyncContext,
  id: string,
  print: (record: DryRunRecord, githubWrite: boolean) => void,
  followUps: FollowUps | null,
  allow: ((action: EngineAction) => boolean) | undefined,
  shown: Set<string>,
): Promise<void> {
  const group = subjectKind(id) === "group";
  const planned = group ? planGroupSubject(ctx, id, { preview: true }) : await threatPlan(ctx, id);
  if (planned === null) return;
  let actions: EngineAction[] = planned.filter((action) => !allow || allow(action));
  for (let round = 0; round < MAX_ROUNDS && actions.length > 0; round += 1) {
    const fresh = actions.filter((action) => {
      const key = lineKey(id, action);
      if (shown.has(key)) return false;
      shown.add(key);
      return true;
    });
    await printActions(ctx, id, fresh, print, followUps);
    if (followUps === null) return;
    let answered = false;
    for (const action of fresh) if (await followUps.answer(id, action)) answered = true;
    if (!answered) return;
    // Planned from the state the answers left, as the drain's next round is (no second read).
    actions = group ? planGroupSubject(ctx, id, { preview: true }) : planFor(ctx, id);
  }
}

/** A round's lines: each write's, after the milestone it makes first (where it makes one). */
async function printActions(
  ctx: SyncContext,
  id: string,
  actions: readonly EngineAction[],
  print: (record: DryRunRecord, githubWrite: boolean) => void,
  followUps: FollowUps | null,
): Promise<void> {
  // A related walk is a read: the dry run makes it, and shows what the written body would list.
  const related =
    subjectKind(id) === "group"
      ? undefined
      : await prepareRelated(ctx.related, ctx.cache.get(id)?.view.assetId, actions);
  for (const action of actions) {
    const milestone = followUps ? await followUps.before(action) : null;
    // A milestone is made on GitHub; the lines a write brings with it (an update's comment) go
    // where the write goes.
    if (milestone !== null) print(milestone, true);
    const [record, ...then] = recordsFor(ctx, id, action);
    if (record === undefined) continue;
    const github = isGitHubWrite(action);
    print(related !== undefined && writesBody(action) ? relatedRecord(record, related) : record, github);
    for (const more of then) print(more, github);
  }
}

/** Threat ids that have an issue in the state: taken before a dry run, to show what it adopts. */
export function threatsWithIssue(ctx: SyncContext): Set<string> {
  const ids = new Set<string>();
  for (const [id, record] of ctx.state.threats.entries()) if (record.issue) ids.add(id);
  return ids;
}

/** What a dry run read from both sides: the plan's header. */
interface DryRunReads {
  assets: number;
  threats: number;
  githubIssues: number;
  peopleChanges: number;
}

/** An observer of the engine's events that tallies what the plan's header shows (subscribe it before the cycle). */
export function dryRunReads(): { observe: EngineObserver; read(): DryRunReads } {
  const read: DryRunReads = { assets: 0, threats: 0, githubIssues: 0, peopleChanges: 0 };
  return {
    observe(event) {
      if (event.type === "stream_read") read[event.stream] += event.items;
      else if (event.type === "github_issues_read") read.githubIssues += event.issues;
      else if (event.type === "person_changed") read.peopleChanges += 1;
    },
    read: () => ({ ...read }),
  };
}

/** The plan's header and footer: what was read, what gets no issue and why, what was adopted. */
export interface DryRunSummary {
  read: DryRunReads;
  noIssue: NoIssueCounts;
  /** Existing issues found by their marker (intake adopts them into the in-memory state). */
  adopted: DryRunRecord[];
}

function assetOf(ctx: SyncContext, view: ThreatView): AssetView | null {
  const record = view.assetId ? ctx.state.assets[view.assetId] : undefined;
  return view.assetId && record ? { id: view.assetId, name: record.name, type: record.type } : null;
}

export function summarizeDryRun(
  ctx: SyncContext,
  threatsRead: ReadonlyMap<string, Threat>,
  hadIssue: ReadonlySet<string>,
  read: DryRunReads,
): DryRunSummary {
  const views = new Map<string, ThreatView>();
  for (const [id, threat] of threatsRead)
    views.set(id, toThreatView(threat, ctx.config.fields.threat, ctx.policy.wherePaths.threat));
  const withoutIssue = [...views]
    .filter(([id]) => !ctx.state.threats.get(id)?.issue && !ctx.state.queue[id])
    .map(([, view]) => ({ view, asset: assetOf(ctx, view) }));
  const adopted: DryRunRecord[] = [];
  for (const [id, record] of ctx.state.threats.entries()) {
    // An issue the dry run would create is no adoption.
    if (!record.issue || record.issue.number === NEW_ISSUE || hadIssue.has(id)) continue;
    const line: DryRunRecord = {
      action: "adopt",
      threat_id: id,
      repository: record.issue.repo,
      issue: record.issue.number,
    };
    const severity = severityName(views.get(id)?.severityRank ?? record.severity);
    if (severity !== null) line.severity = severity;
    const title = views.get(id)?.title;
    if (title) line.title = title;
    adopted.push(line);
  }
  return {
    read,
    noIssue: countNoIssue(withoutIssue, ctx.policy),
    adopted,
  };
}
