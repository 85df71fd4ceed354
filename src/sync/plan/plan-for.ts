import type { SyncContext } from "../context.js";
import { leavesStateAlone, plan, type Action } from "./plan.js";
import { featuresFor } from "../features/registry.js";
import { desiredIssueState, isEligible, routeFor } from "./policy.js";
import type { AssetView } from "../render/index.js";
import { updateThreat } from "../records/state-updates.js";
import { removalCloseCleared } from "../transitions/outcome.js";
import { acceptanceAfterStatus } from "../transitions/acceptance.js";
import { gone, notRead, present } from "./known.js";
import {
  buildMemberIndex,
  isGroupIssueRef,
  memberVerdict,
  singleMembership,
  type SingleMembership,
} from "../records/group-members.js";
import { parseExternalId } from "../render/normalize.js";

/** Grouping `single` mode: the threat's group and its issue, when the threat is a member. */
function singleOf(ctx: SyncContext, threatId: string): { single?: SingleMembership } {
  if (ctx.config.grouping?.mode !== "single") return {};
  const byThreat = (ctx.groupMembers ??= buildMemberIndex(ctx.state.groups));
  const single = singleMembership(ctx.state.groups, byThreat, threatId);
  return single ? { single } : {};
}

/**
 * The threat's platform link, unless it names a group's issue while the threat is no member of
 * that group in single mode: such a link is not the threat's own issue to adopt (the threat gets
 * its own, and its link is moved to it).
 */
function ownLink(
  ctx: SyncContext,
  threatId: string,
  link: { externalId: string; url: string } | null,
  hasIssue: boolean,
): { externalId: string; url: string } | null {
  if (link === null || hasIssue || ctx.state.groups === undefined) return link;
  const named = parseExternalId(link.externalId);
  if (named === null || !isGroupIssueRef(ctx.state.groups, named.repo, named.number)) return link;
  return singleOf(ctx, threatId).single ? link : null;
}

/**
 * A threat that was a single-mode member (its link names a group's issue) and is no longer one
 * (grouping changed or its group left it): it gets an issue of its own only while it is open on
 * the platform. One a person's close of its group issue solved, or whose fix the platform still
 * verifies (`pending`), stays with the closed group issue (contract, "Changing grouping"); so does
 * a version older than that verdict's answer, read again by a walk from the start.
 */
function formerMemberAtRest(
  ctx: SyncContext,
  threatId: string,
  link: { externalId: string } | null,
  version: { status: string; updatedAt: string },
): boolean {
  if (link === null || ctx.state.groups === undefined) return false;
  const named = parseExternalId(link.externalId);
  if (named === null || !isGroupIssueRef(ctx.state.groups, named.repo, named.number)) return false;
  if (singleOf(ctx, threatId).single !== undefined) return false;
  const open = (status: string) => desiredIssueState(status)?.state === "open";
  if (!open(version.status)) return true;
  const verdict = memberVerdict(ctx.state.groups, named.repo, named.number, threatId);
  return verdict !== undefined && !open(verdict.status) && version.updatedAt <= verdict.at;
}

import { forOccurrence } from "../render/occurrence.js";
import { acceptanceWaits } from "./acceptance-input.js";
import { slaView } from "../features/sla/transitions.js";
import type { SlaPolicy } from "../features/sla/plan.js";

function slaPolicy(ctx: SyncContext, nowMs: number): SlaPolicy {
  const sla = ctx.config.sla;
  return {
    nowMs,
    breachLabel: sla?.breach_label ?? "",
    // Without the milestones API (the engine's own test fakes) the milestones are not planned.
    weekly: sla?.milestones === "weekly" && ctx.workflow !== undefined,
  };
}

/**
 * The plan for one threat: the core's, then, where it leaves the issue's state alone, each
 * configured feature's (features/registry.ts), in the registry's order.
 */
export function planFor(ctx: SyncContext, threatId: string): Action[] {
  const actions = planCore(ctx, threatId);
  if (!actions.every(leavesStateAlone)) return actions;
  const record = ctx.state.threats.get(threatId);
  if (!record || record.gone) return actions;
  const features = featuresFor(ctx.config).flatMap((feature) => feature.plan?.(ctx, threatId, record) ?? []);
  return features.length === 0 ? actions : [...actions, ...features];
}

/** Gathers the planner's plain inputs for one threat from the run's cache and the state. */
function planCore(ctx: SyncContext, threatId: string): Action[] {
  const record = ctx.state.threats.get(threatId);
  const cached = record?.gone ? undefined : ctx.cache.get(threatId);
  const nowMs = ctx.clock.now();
  const read = cached?.view ?? null;
  // The SLA the record holds is shown on the issue (its due day) and given to templates.
  const view = read && record?.sla ? { ...read, sla: slaView(record.sla, nowMs) } : read;
  // The threat is back (its asset restored): a later removal closes its issue again.
  if (view && record?.closedForRemoval) {
    updateThreat(ctx, threatId, removalCloseCleared);
  }
  const assetRecord = view?.assetId ? ctx.state.assets[view.assetId] : undefined;
  const asset: AssetView | null =
    view?.assetId && assetRecord
      ? { id: view.assetId, name: assetRecord.name, type: assetRecord.type }
      : null;
  const route = view
    ? routeFor(view, asset, ctx.policy)
    : { repo: ctx.policy.defaultRepo, labels: [], assignees: [] };
  // A person's change with the threat not at hand (it did not change on the stream): the planner
  // needs only its status, which the state holds; the verdict's answer brings the threat (drain.ts).
  const person = ctx.state.queue[threatId]?.person;
  const now = nowMs;
  // A risk acceptance's time-driven step is planned from the record too (no read to decide it).
  const statusOnly =
    !view && (person || acceptanceWaits(ctx, threatId, now)) && record?.issue && !record.gone
      ? { status: record.status }
      : null;
  const seen = view ? { status: view.status } : statusOnly;
  const threat = seen ? present(seen) : record?.gone ? gone : notRead;
  // An acceptance the platform or a person ended (another status, its issue back open) is forgotten.
  const afterStatus = record && seen ? acceptanceAfterStatus(record, seen.status, now) : null;
  if (afterStatus) updateThreat(ctx, threatId, () => afterStatus);
  const base = view ? ctx.renderer.render(view, asset, route) : null;
  const current = ctx.state.threats.get(threatId);
  const occurrence = current?.occurrence ?? 1;
  const from = current?.recurredFrom;
  const rendered = base && occurrence > 1 && from ? forOccurrence(base, threatId, occurrence, from) : base;
  return plan({
    threatId,
    threat,
    link: ownLink(ctx, threatId, cached?.link ?? null, record?.issue !== undefined),
    record: ctx.state.threats.get(threatId),
    person,
    eligible:
      view !== null &&
      isEligible(view, asset, ctx.policy) &&
      !formerMemberAtRest(ctx, threatId, cached?.link ?? null, view),
    route,
    rendered,
    policy: ctx.policy,
    ...(ctx.recreate ? { recreate: true } : {}),
    ...singleOf(ctx, threatId),
    now,
    ...(base
      ? {
          renderOccurrence: (n: number, previous: { repo: string; number: number }) =>
            forOccurrence(base, threatId, n, previous),
        }
      : {}),
    ...(ctx.config.sla ? { sla: slaPolicy(ctx, nowMs) } : {}),
  });
}
