import type { Action } from "../plan/plan.js";
import { acceptAction } from "./accept.js";
import { adoptAction } from "./adopt.js";
import { createAction } from "./create.js";
import { linkAction } from "./link.js";
import { updateAction } from "./update.js";
import { verdictAction } from "./verdict.js";
import { featureAction } from "./feature.js";
import { attachAction, memberIdAction } from "./group-attach.js";
import {
  groupCreateAction,
  groupFullAction,
  groupStateAction,
  groupUpdateAction,
  singleCreateAction,
  singlePersonDoneAction,
  singleStateAction,
  singleUpdateAction,
  singleVerdictAction,
} from "./group-issue.js";
import type {
  ActionDescription,
  ActionModule,
  ActionOf,
  AskedIo,
  EngineAction,
  Settlement,
} from "./types.js";
import type { GroupAction } from "../groups/plan-groups.js";
import type { SingleAction } from "../groups/plan-single.js";
import type { RetireAction } from "../groups/retire-plan.js";
import { groupRetireAction, groupRetireNoteAction } from "./group-retire.js";

/** The registry, kind → module: a kind of the `Action` union without a module does not compile. */
type ActionRegistry = { [K in Action["kind"]]: ActionModule<ActionOf<K>, unknown> };

// The dry run's order (`ACTION_KINDS`): people's verdicts, changes to issues, new issues, repairs.
export const actionModules: ActionRegistry = {
  verdict: verdictAction,
  update: updateAction,
  create: createAction,
  adopt: adoptAction,
  link: linkAction,
  accept: acceptAction,
  feature: featureAction,
};

/** A group subject's kinds, exhaustive as the planner's registry is. */
type GroupActionRegistry = {
  [K in (GroupAction | SingleAction | RetireAction)["kind"]]: ActionModule<ActionOf<K>, unknown>;
};

export const groupActionModules: GroupActionRegistry = {
  group_create: groupCreateAction,
  group_update: groupUpdateAction,
  group_state: groupStateAction,
  group_full: groupFullAction,
  member_id: memberIdAction,
  attach: attachAction,
  single_create: singleCreateAction,
  single_update: singleUpdateAction,
  single_state: singleStateAction,
  single_verdict: singleVerdictAction,
  single_person_done: singlePersonDoneAction,
  group_retire: groupRetireAction,
  group_retire_note: groupRetireNoteAction,
};

/** Every kind of the planner's actions, from the registry (so a list of kinds cannot miss one). */
export const ACTION_KINDS: ReadonlyArray<Action["kind"]> = Object.values(actionModules).map((m) => m.kind);

/** Every kind the runner carries out and its module (the planner's half orders the dry run). */
const engineModules: { [K in EngineAction["kind"]]: ActionModule<ActionOf<K>, unknown> } = {
  ...actionModules,
  ...groupActionModules,
};

/** The module of an action's kind, typed for that action (the union is narrowed by its kind). */
export function moduleOf<A extends EngineAction>(action: A): ActionModule<A, unknown> {
  // Sound: the registry's type pairs each kind with the module for exactly that action.
  return engineModules[action.kind as EngineAction["kind"]] as unknown as ActionModule<A, unknown>;
}

/** Queue order class of a plan: the most urgent of its actions (contract, "Priorities"). */
export function priorityOf(actions: readonly EngineAction[]): number {
  let best = 9;
  for (const action of actions) best = Math.min(best, moduleOf(action).priority(action));
  return best;
}

/** Actions that write to GitHub (and so spend the write budget). */
export function isGitHubWrite(action: EngineAction): boolean {
  return moduleOf(action).spendsGitHubBudget(action);
}

/** What `reconcile` may do: adopt, link, accept people's changes, and a feature's own repairs. */
export function isMappingRepair(action: EngineAction): boolean {
  const module = moduleOf(action);
  return module.repairs ? module.repairs(action) : module.mappingRepair;
}

export function describeAction(action: EngineAction): ActionDescription {
  return moduleOf(action).describe(action);
}

/** What an action's answer would mean had it landed as asked (dry run); null where unknown. */
export async function settledAsAsked(action: EngineAction, io: AskedIo): Promise<Settlement | null> {
  const module = moduleOf(action);
  const answer = await module.asAsked?.(action, io);
  return answer === undefined ? null : module.settle(action, answer);
}

export {
  QueueClass,
  type ActionModule,
  type ActionDescription,
  type AskedIo,
  type EngineAction,
  type IntentSpec,
  type SendIo,
  type Settlement,
} from "./types.js";
export { surelyRefused } from "./write-helpers.js";
