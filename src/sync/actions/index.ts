import type { Action } from "../plan/plan.js";
import { acceptAction } from "./accept.js";
import { acceptRiskAction } from "./accept-risk.js";
import { expireRiskAction } from "./expire-risk.js";
import { recurAction } from "./recur.js";
import { stepCommentAction, warnExpiryAction } from "./step-comment.js";
import { adoptAction } from "./adopt.js";
import { createAction } from "./create.js";
import { linkAction } from "./link.js";
import { updateAction } from "./update.js";
import { verdictAction } from "./verdict.js";
import { slaBreachAction } from "./sla-breach.js";
import { slaMilestoneAction } from "./sla-milestone.js";
import type { ActionDescription, ActionModule, ActionOf } from "./types.js";

/**
 * The registry: kind → module. Its type makes it exhaustive: a kind added to the `Action` union
 * without a module here does not compile.
 */
export type ActionRegistry = { [K in Action["kind"]]: ActionModule<ActionOf<K>, unknown> };

// In the order a dry run lists the plan (people's verdicts first, then changes to issues, new
// issues, mapping repairs): `ACTION_KINDS` is this order.
export const actionModules: ActionRegistry = {
  verdict: verdictAction,
  acceptRisk: acceptRiskAction,
  update: updateAction,
  expireRisk: expireRiskAction,
  recur: recurAction,
  warnExpiry: warnExpiryAction,
  stepComment: stepCommentAction,
  create: createAction,
  adopt: adoptAction,
  link: linkAction,
  accept: acceptAction,
  sla_breach: slaBreachAction,
  sla_milestone: slaMilestoneAction,
};

/** Every kind of action, from the registry (so a list of kinds cannot miss one). */
export const ACTION_KINDS: ReadonlyArray<Action["kind"]> = Object.values(actionModules).map((m) => m.kind);

/** The module of an action's kind, typed for that action (the union is narrowed by its kind). */
export function moduleOf<A extends Action>(action: A): ActionModule<A, unknown> {
  // Sound: the registry's type pairs each kind with the module for exactly that action.
  return actionModules[action.kind] as unknown as ActionModule<A, unknown>;
}

/** Queue order class of a plan: the most urgent of its actions (contract, "Priorities"). */
export function priorityOf(actions: readonly Action[]): number {
  let best = 9;
  for (const action of actions) best = Math.min(best, moduleOf(action).priority(action));
  return best;
}

/** Actions that write to GitHub (and so spend the write budget). */
export function isGitHubWrite(action: Action): boolean {
  return moduleOf(action).spendsGitHubBudget(action);
}

/** What `reconcile` may do: adopt issues, write links, accept people's changes. */
export function isMappingRepair(action: Action): boolean {
  return moduleOf(action).mappingRepair;
}

export function describeAction(action: Action): ActionDescription {
  return moduleOf(action).describe(action);
}

export {
  QueueClass,
  type ActionModule,
  type ActionDescription,
  type IntentSpec,
  type SendIo,
  type Settlement,
} from "./types.js";
export { surelyRefused } from "./write-helpers.js";
export { MilestoneBook } from "./milestone-book.js";
