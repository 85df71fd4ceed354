import type { SyncContext } from "../context.js";
import { leavesStateAlone, plan, type Action } from "./plan.js";
import {
  createdWith,
  decidersFor,
  featurePlans,
  featuresShown,
  plannedFromRecord,
  pluggedFor,
  renderedFor,
  statusSeen,
} from "../features/registry.js";
import { defaultRoute, desiredIssueState, noIssueReason, routeFor } from "./policy.js";
import type { AssetView, ThreatView } from "../render/index.js";
import { putThreat } from "../records/state-updates.js";
import type { ThreatRecord } from "../schema.js";
import { removalCloseCleared } from "../transitions/outcome.js";
import { gone, notRead, present } from "./known.js";
import {
  anyGroupStored,
  buildMemberIndex,
  isGroupIssueRef,
  memberVerdict,
  singleMembership,
  type SingleMembership,
} from "../records/group-members.js";
import { parseExternalId } from "../render/normalize.js";
import { compareIso } from "../../shared/iso-time.js";
import { keepPlacement, shownRoute } from "./route-placed.js";

/** Grouping `single` mode: the threat's group and its issue, when the threat is a member. */
function singleOf(ctx: SyncContext, threatId: string): SingleMembership | undefined {
  if (ctx.config.grouping?.mode !== "single") return undefined;
  const byThreat = (ctx.groupMembers ??= buildMemberIndex(ctx.state.groups));
  return singleMembership(ctx.state.groups, byThreat, threatId);
}

/** What grouping says of a threat's plan: the link it may adopt, whether it rests, its group issue. */
interface GroupedInputs {
  link: { externalId: string; url: string } | null;
  /** A former single-mode member that stays with its closed group issue (formerMemberAtRest). */
  atRest: boolean;
  single?: SingleMembership;
}

/**
 * The planner's grouping inputs, asked only when a group is stored. A group stored under an older
 * setting still counts after grouping is off (contract, "Changing grouping").
 */
function groupedInputs(
  ctx: SyncContext,
  threatId: string,
  link: { externalId: string; url: string } | null,
  hasIssue: boolean,
  view: { status: string; updatedAt: string } | null,
): GroupedInputs {
  const single = singleOf(ctx, threatId);
  const named = link === null ? null : parseExternalId(link.externalId);
  const groupIssue = named !== null && isGroupIssueRef(ctx.state.groups, named.repo, named.number);
  return {
    link: ownLink(link, hasIssue, groupIssue, single),
    atRest:
      view !== null && named !== null && groupIssue && single === undefined
        ? formerMemberAtRest(ctx, threatId, named, view)
        : false,
    ...(single ? { single } : {}),
  };
}

/** The threat's platform link, unless it names a single-mode group's issue the threat is no member of. */
function ownLink(
  link: { externalId: string; url: string } | null,
  hasIssue: boolean,
  groupIssue: boolean,
  single: SingleMembership | undefined,
): { externalId: string; url: string } | null {
  if (link === null || hasIssue || !groupIssue) return link;
  return single ? link : null;
}

/**
 * A former single-mode member gets an issue of its own only while open on the platform; one its
 * group issue's close solved (or `pending`), or an older version of it, stays with the closed group
 * issue (contract, "Changing grouping").
 */
function formerMemberAtRest(
  ctx: SyncContext,
  threatId: string,
  named: { repo: string; number: number },
  version: { status: string; updatedAt: string },
): boolean {
  const open = (status: string) => desiredIssueState(status)?.state === "open";
  if (!open(version.status)) return true;
  const verdict = memberVerdict(ctx.state.groups, named.repo, named.number, threatId);
  // By the instant, not the text: the platform may write whole seconds, milliseconds or an offset.
  return verdict !== undefined && !open(verdict.status) && compareIso(version.updatedAt, verdict.at) <= 0;
}

/** The features' additions to the threat's view (the SLA's due day, for the body and templates). */
function withFeatures(
  ctx: SyncContext,
  view: ThreatView | null,
  record: ThreatRecord | undefined,
  nowMs: number,
): ThreatView | null {
  if (!view || !record) return view;
  const shown = featuresShown(ctx.config, record, nowMs);
  return shown === undefined ? view : { ...view, features: shown };
}

/** The core's plan, then, where it leaves the issue's state alone, each feature's in registry order. */
export function planFor(ctx: SyncContext, threatId: string): Action[] {
  const { actions, record } = planCore(ctx, threatId);
  const plugged = pluggedFor(ctx.config);
  if (plugged.plan.length === 0 || !actions.every(leavesStateAlone)) return actions;
  if (!record || record.gone) return actions;
  const read = ctx.cache.get(threatId)?.view ?? null;
  const view = plugged.viewOf.length === 0 ? read : withFeatures(ctx, read, record, ctx.clock.now());
  const features = featurePlans(ctx, threatId, record, view);
  return features.length === 0 ? actions : [...actions, ...features];
}

/** The core's plan, and the record it planned from (read once; what it changed of it written through). */
function planCore(
  ctx: SyncContext,
  threatId: string,
): { actions: Action[]; record: ThreatRecord | undefined } {
  let record = ctx.state.threats.get(threatId);
  const cached = record?.gone ? undefined : ctx.cache.get(threatId);
  const nowMs = ctx.clock.now();
  const read = cached?.view ?? null;
  // The configured features by hook: a hook no feature has is not asked (features/registry.ts).
  const features = pluggedFor(ctx.config);
  const view = features.viewOf.length === 0 ? read : withFeatures(ctx, read, record, nowMs);
  // The threat is back (its asset restored): a later removal closes its issue again.
  if (view && record?.closedForRemoval) {
    const before = record;
    record = removalCloseCleared(record);
    putThreat(ctx, threatId, record, before);
  }
  const assetRecord = view?.assetId ? ctx.state.assets[view.assetId] : undefined;
  const asset: AssetView | null =
    view?.assetId && assetRecord
      ? { id: view.assetId, name: assetRecord.name, type: assetRecord.type }
      : null;
  // An existing issue shows the rule that placed it (kept at its creation), not the one matching now.
  const route = view
    ? shownRoute(record, routeFor(view, asset, ctx.policy, assetRecord?.routeValues))
    : defaultRoute(ctx.policy);
  // A person's change with the threat not at hand (it did not change on the stream): the planner
  // needs only its status, which the state holds; the verdict's answer brings the threat (drain.ts).
  const person = ctx.state.queue[threatId]?.person;
  const statusOnly =
    !view && record?.issue && !record.gone && (person || plannedFromRecord(ctx, threatId, nowMs))
      ? { status: record.status }
      : null;
  const seen = view ? { status: view.status } : statusOnly;
  const threat = seen ? present(seen) : record?.gone ? gone : notRead;
  const afterStatus =
    record && seen && features.onStatusSeen.length > 0
      ? statusSeen(ctx.config, record, seen.status, nowMs)
      : null;
  if (afterStatus) {
    putThreat(ctx, threatId, afterStatus, record);
    record = afterStatus;
  }
  const base = view ? ctx.renderer.render(view, asset, route) : null;
  const rendered = base ? renderedFor(ctx.config, record, threatId, base) : null;
  // Nothing grouped: grouping says nothing of the plan, and the threat's link is its own.
  const link = cached?.link ?? null;
  const grouped: GroupedInputs = anyGroupStored(ctx.state.groups)
    ? groupedInputs(ctx, threatId, link, record?.issue !== undefined, view)
    : { link, atRest: false };
  const actions = plan({
    threatId,
    threat,
    link: grouped.link,
    record,
    person,
    eligible: view !== null && noIssueReason(view, asset, ctx.policy) === null && !grouped.atRest,
    route,
    rendered,
    policy: ctx.policy,
    ...(ctx.recreate ? { recreate: true } : {}),
    ...(grouped.single ? { single: grouped.single } : {}),
    createWith: features.createWith.length === 0 || !record ? {} : createdWith(ctx, record),
    deciders: features.decide.length === 0 ? [] : decidersFor(ctx.config, { threatId, nowMs, base }),
  });
  if (ctx.policy.compiledRoutes.length > 0) record = keepPlacement(ctx, threatId, record, actions, route);
  return { actions, record };
}
