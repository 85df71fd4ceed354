import { featureModule } from "../features/registry.js";
import type { FeatureAction } from "../plan/plan.js";
import type { ActionModule } from "./types.js";

/** The one core kind behind every feature's writes, dispatched to the module registered for its step. */
export const featureAction: ActionModule<FeatureAction, unknown> = {
  kind: "feature",
  priority: (action) => featureModule(action).priority(action),
  spendsGitHubBudget: (action) => featureModule(action).spendsGitHubBudget(action),
  // `reconcile` runs a feature's step where its module says it repairs what the state lost.
  mappingRepair: false,
  repairs: (action) => featureModule(action).mappingRepair,
  describe: (action) => featureModule(action).describe(action),
  readFirst: (action) => featureModule(action).readFirst?.(action) ?? false,
  intent: (action) => featureModule(action).intent?.(action) ?? null,
  send: (action, io, intent) => featureModule(action).send(action, io, intent),
  settle: (action, outcome) => featureModule(action).settle(action, outcome),
  milestoneOf: (action) => featureModule(action).milestoneOf?.(action) ?? null,
  asAsked: (action, io) => featureModule(action).asAsked?.(action, io) ?? Promise.resolve(undefined),
};
