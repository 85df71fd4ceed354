import { enqueue } from "./records/queue.js";
import { commitOf, isClean, type StateCommit } from "./records/state-changes.js";
import { createStateContext, updateThreat } from "./records/state-updates.js";
import { ThreatIndex } from "./records/threat-index.js";
import type { EngineState } from "./records/threat-records.js";
import { refusalCleared } from "./transitions/outcome.js";

/**
 * `threatbridge retry`: work that GitHub (or the platform) refused for good is recorded on the threat and never
 * retried on its own (refusals.ts), because sending the same request again gets the same answer.
 * Once the operator has removed the cause (unarchived the repository, unlocked the conversation,
 * fixed a label), this puts that work back: the refusal is cleared and the threat gets a queue
 * entry, so that the next cycle reads the threat afresh and plans it like any other due work. No
 * step is replayed from the record: the planner decides again from the threat as it is then.
 */

/** Which refused work to put back: all of it, or that of the threats named. */
export type RetrySelection = { all: true } | { threatIds: readonly string[] };

/** One threat's refused step, as `status` lists it under `refused`. */
interface RefusedWork {
  threatId: string;
  action: string;
  reason: string;
  at: string;
}

export interface RetryPlan {
  /** The refused work selected, in the order it was asked for (`--all`: the state's order). */
  requeue: RefusedWork[];
  /**
   * Threats named that have no refused work: `known: false` when the state holds no record of
   * the threat (a mistyped id, or one the connector never had to remember).
   */
  notRefused: Array<{ threatId: string; known: boolean }>;
}

/** What the selection picks; pure, so `--dry-run` shows exactly what a real run would do. */
export function planRetry(state: Pick<EngineState, "threats">, selection: RetrySelection): RetryPlan {
  const plan: RetryPlan = { requeue: [], notRefused: [] };
  if ("all" in selection) {
    for (const [threatId, record] of state.threats.tally().special) {
      if (record.refused) plan.requeue.push({ threatId, ...record.refused });
    }
    return plan;
  }
  const seen = new Set<string>();
  for (const threatId of selection.threatIds) {
    // `--threat A --threat A` asks once.
    if (seen.has(threatId)) continue;
    seen.add(threatId);
    const record = state.threats.get(threatId);
    if (record?.refused) plan.requeue.push({ threatId, ...record.refused });
    else plan.notRefused.push({ threatId, known: record !== undefined });
  }
  return plan;
}

/**
 * Puts the planned work back in the queue of `loaded` (the state as opened under the lock) and
 * answers the one commit that makes it durable, or null when there is nothing to write. A threat
 * that already has a queue entry (new work came for it since the refusal) keeps its place and
 * age; its back-off ends, as with any new information.
 */
export function applyRetry(
  loaded: EngineState,
  plan: RetryPlan,
  opts: { now: string; freeze?: boolean },
): StateCommit | null {
  const held = createStateContext(loaded, { freeze: opts.freeze === true });
  // Only the records of the threats touched change; their asset and issue stay as they were, so
  // the index needs no pass over the stored threats.
  const ctx = { ...held, index: new ThreatIndex(held.state.threats) };
  for (const { threatId } of plan.requeue) {
    updateThreat(ctx, threatId, refusalCleared);
    enqueue(ctx, threatId, {}, opts.now);
  }
  return isClean(ctx.changes) ? null : commitOf(ctx.state, ctx.changes);
}
