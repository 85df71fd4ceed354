import type { SyncContext } from "../context.js";
import type { DryRunRecord } from "../run/dry-run-record.js";
import type { Action } from "../plan/plan.js";
import type { QueueClass } from "../plan/queue-class.js";

export { QueueClass } from "../plan/queue-class.js";

/** What a dry run or a plan prints for an action beyond its kind, threat, repository and issue. */
export type ActionDescription = Pick<DryRunRecord, "labels" | "assignees" | "detail">;

/**
 * Everything the engine knows about one kind of action, in one place: adding a kind is one module,
 * its clause in the planner and one line in the registry (issue 7, item 3).
 */
export interface ActionModule<A extends Action = Action> {
  kind: A["kind"];
  /** The queue class of a plan holding this action. */
  priority(action: A): QueueClass;
  /** Whether carrying it out spends the GitHub write budget (a deadline defers it). */
  spendsGitHubBudget(action: A): boolean;
  /** Whether `reconcile` (mapping repairs only) may carry it out. */
  mappingRepair: boolean;
  /** Carries it out; every state change goes through state-updates.ts. */
  run(ctx: SyncContext, action: A): Promise<void>;
  describe(action: A): ActionDescription;
}

export type ActionOf<K extends Action["kind"]> = Extract<Action, { kind: K }>;
