import type { SyncContext } from "../context.js";
import { plan, type Action } from "./plan.js";
import { isEligible, routeFor } from "./policy.js";
import type { AssetView } from "../render/index.js";
import { updateThreat } from "../records/state-updates.js";
import { removalCloseCleared } from "../transitions/outcome.js";
import { gone, notRead, present } from "./known.js";
import { buildMemberIndex, singleMembership, type SingleMembership } from "../records/group-members.js";

/** Grouping `single` mode: the threat's group and its issue, when the threat is a member. */
function singleOf(ctx: SyncContext, threatId: string): { single?: SingleMembership } {
  if (ctx.config.grouping?.mode !== "single") return {};
  const byThreat = (ctx.groupMembers ??= buildMemberIndex(ctx.state.groups));
  const single = singleMembership(ctx.state.groups, byThreat, threatId);
  return single ? { single } : {};
}

/** Gathers the planner's plain inputs for one threat from the run's cache and the state. */
export function planFor(ctx: SyncContext, threatId: string): Action[] {
  const record = ctx.state.threats.get(threatId);
  const cached = record?.gone ? undefined : ctx.cache.get(threatId);
  const view = cached?.view ?? null;
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
  const statusOnly = !view && person && record?.issue && !record.gone ? { status: record.status } : null;
  const seen = view ? { status: view.status } : statusOnly;
  const threat = seen ? present(seen) : record?.gone ? gone : notRead;
  return plan({
    threatId,
    threat,
    link: cached?.link ?? null,
    record: ctx.state.threats.get(threatId),
    person,
    eligible: view ? isEligible(view, asset, ctx.policy) : false,
    route,
    rendered: view ? ctx.renderer.render(view, asset, route) : null,
    policy: ctx.policy,
    ...(ctx.recreate ? { recreate: true } : {}),
    ...singleOf(ctx, threatId),
  });
}
