import { isOwnLabel } from "../../shared/index.js";
import { GitHubError, type IssueSnapshot } from "../../github/index.js";
import type { Intent, IssueRecord } from "../schema.js";
import {
  moduleOf,
  surelyRefused,
  type EngineAction,
  type SendIo,
  type Settlement,
} from "../actions/index.js";
import { checkpoint, type SyncContext } from "../context.js";
import { isFresh } from "../intake/fresh-poll.js";
import { notePersonChange } from "../intake/github.js";
import { githubLink, toThreatView } from "../render/normalize.js";
import { resolveGroupCreate } from "../groups/resolve-create.js";
import { sayOnce } from "../groups/parent-state.js";
import { queueMembers } from "../groups/single-members.js";
import { dropPending, dropPerson, putGroup, updateThreat } from "../records/state-updates.js";
import { issueTransferred } from "../transitions/outcome.js";
import { withIntent } from "./intents.js";
import { resolveCreate, resolveFeatureIntent } from "./recover.js";
import { featureRuntime as runtimeOfFeature, issueFound } from "../features/registry.js";
import { markIssueDeleted } from "./refusals.js";
import { subjectKind } from "../records/subject.js";

/**
 * The one place an action is carried out: the module sends it and says what the answer means; this
 * runner makes the intent durable first, applies the settlement, tells the observers and commits.
 */

/** Whose action it is: the threat's id, or for a group's own issue the group's key. */
function subjectOf(action: EngineAction): string {
  return "threatId" in action ? action.threatId : action.groupId;
}

/** What a feature made for its modules, once per process (features/types.ts `runtime`). */
function featureRuntime(ctx: SyncContext, name: string): unknown {
  const runtimes = (ctx.featureRuntimes ??= new Map());
  if (!runtimes.has(name)) runtimes.set(name, runtimeOfFeature(ctx, name));
  return runtimes.get(name);
}

function sendIo(ctx: SyncContext): SendIo {
  return {
    github: ctx.github,
    workflow: ctx.workflow ?? null,
    platform: ctx.platform,
    // Labels of the connector's own vocabulary; others (people's) are kept on update.
    isManagedLabel: (label) => isOwnLabel(label, ctx.policy.managedLabel),
    runtimeOf: (feature) => featureRuntime(ctx, feature),
  };
}

/** A person transferred the issue (GitHub answered from its new place): the record follows it. */
function repoint(ctx: SyncContext, threatId: string, known: IssueRecord, current: IssueSnapshot): void {
  if (known.repo === current.repo && known.number === current.number) return;
  ctx.logger.info(
    {
      threat_id: threatId,
      issue: `${current.repo}#${current.number}`,
      from: `${known.repo}#${known.number}`,
    },
    "the issue was transferred; the connector follows it and re-points the platform's link",
  );
  updateThreat(ctx, threatId, (r) => issueTransferred(r, known, current));
  ctx.emit({ type: "transferred", threatId, issue: { repo: current.repo, number: current.number } });
}

function follow(ctx: SyncContext, threatId: string, issue: IssueSnapshot): void {
  const known = ctx.state.threats.get(threatId)?.issue;
  if (known) repoint(ctx, threatId, known, issue);
}

/** Reads the issue first unless the change list is fresh; null when a person's change came first. */
async function readFirst<A extends EngineAction>(ctx: SyncContext, action: A): Promise<A | null> {
  const { repo, number } = action as { repo?: unknown; number?: unknown };
  if (typeof repo !== "string" || typeof number !== "number" || isFresh(ctx, repo)) return action;
  const current = await ctx.github.getIssue(repo, number);
  if (current === null) {
    throw new GitHubError("not_found", `${repo}#${number} was deleted`, { status: 410 });
  }
  const threatId = subjectOf(action);
  follow(ctx, threatId, current);
  if (await notePersonChange(ctx, threatId, current)) {
    await checkpoint(ctx);
    return null; // planned again: the person's change becomes a verdict first
  }
  return { ...action, repo: current.repo, number: current.number };
}

/** Applies an outcome (record, cache, queue, observers, commit); answers a failed follow-up's error. */
async function apply(ctx: SyncContext, threatId: string, s: Settlement): Promise<unknown> {
  if (s.answered) follow(ctx, threatId, s.answered.issue);
  if (s.deleted) markIssueDeleted(ctx, threatId, s.deleted.repo, s.deleted.number);
  applyToRecords(ctx, threatId, s);
  if (s.notice?.once !== undefined) sayOnce(ctx, s.notice.once, s.notice.fields, s.notice.message);
  else if (s.notice) ctx.logger[s.notice.level](s.notice.fields, s.notice.message);
  for (const event of s.events) ctx.emit(event);
  if (s.answered?.mayShowPerson) await notePersonChange(ctx, threatId, s.answered.issue);
  if (s.unfinished !== undefined) return s.unfinished;
  if (s.commit === "checkpoint") await checkpoint(ctx);
  return undefined;
}

/** The part of a settlement a dry run applies too: the records, the cache and the queue. */
export function applyToRecords(ctx: SyncContext, threatId: string, s: Settlement): void {
  const { record: change, found } = s;
  // Every issue made or taken over: its marker's number is noted whatever is configured. One read
  // and one write of the record for both.
  if (found)
    updateThreat(ctx, threatId, (record) => issueFound(ctx.config, change ? change(record) : record, found));
  else if (change) updateThreat(ctx, threatId, change);
  if (s.cache === "forget") ctx.cache.delete(threatId);
  else if (s.cache && "threat" in s.cache) {
    const threat = s.cache.threat;
    ctx.cache.set(threatId, {
      view: toThreatView(threat, ctx.config.fields.threat, ctx.policy.wherePaths.threat),
      link: githubLink(threat),
    });
  } else if (s.cache) {
    const cached = ctx.cache.get(threatId);
    if (cached) cached.link = s.cache.link;
  }
  if (s.finished === "person") dropPerson(ctx, threatId);
  else if (s.finished === "pending") dropPending(ctx, threatId);
  if (s.group) {
    const group = ctx.state.groups?.[s.group.id];
    if (group) putGroup(ctx, s.group.id, s.group.change(group));
  }
  if (s.linkMembers) queueMembers(ctx, s.linkMembers.groupId, s.linkMembers.repo);
}

/** Carries out one action through its kind's module. */
export async function runAction(ctx: SyncContext, planned: EngineAction): Promise<void> {
  const module = moduleOf(planned);
  const action = module.readFirst?.(planned) ? await readFirst(ctx, planned) : planned;
  if (action === null) return;
  const io = sendIo(ctx);
  const spec = module.intent?.(action) ?? null;
  // Set when the write landed and a follow-up failed: its intent stays whatever the error.
  let landed = false;
  const sendAndApply = async (intent: Intent | null): Promise<void> => {
    const unfinished = await apply(
      ctx,
      subjectOf(action),
      module.settle(action, await module.send(action, io, intent)),
    );
    if (unfinished === undefined) return;
    landed = true;
    throw unfinished;
  };
  if (spec === null) return sendAndApply(null);
  // The intent names its subject's kind: a group's key stands where a threat's id does.
  const fields = { ...spec.fields, subject: subjectKind(spec.fields.threatId) };
  await withIntent(ctx, fields, sendAndApply, {
    ...(spec.onFailure === "find-by-marker"
      ? { resolve: (intent: Intent) => resolveCreate(ctx, intent) }
      : spec.onFailure === "find-group-by-marker"
        ? { resolve: (intent: Intent) => resolveGroupCreate(ctx, intent) }
        : spec.onFailure === "feature-recover"
          ? { resolve: (intent: Intent) => resolveFeatureIntent(ctx, intent) }
          : { keepOnFailure: (error: unknown) => landed || !surelyRefused(error) }),
    settleLazily: spec.settleLazily,
  });
}
