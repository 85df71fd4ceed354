import { enqueue } from "./records/queue.js";
import { commitOf, isClean, type StateCommit } from "./records/state-changes.js";
import { createStateContext, updateThreat } from "./records/state-updates.js";
import { ThreatIndex } from "./records/threat-index.js";
import type { EngineState } from "./records/threat-records.js";
import { refusalCleared } from "./transitions/outcome.js";

/**
 * `threatbridge retry`: work refused for good is never retried on its own (refusals.ts); once the
 * operator removed the cause, this clears the refusal and queues the threat, which the next cycle
 * reads and plans afresh. No step is replayed from the record.
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
  /** Threats named without refused work; `known: false`: the state holds no record of it. */
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

/** Queues the planned work in `loaded` and answers its one commit, or null; a queued threat keeps its age. */
export function applyRetry(
  loaded: EngineState,
  plan: RetryPlan,
  opts: { now: string; freeze?: boolean },
): StateCommit | null {
  const held = createStateContext(loaded, { freeze: opts.freeze === true });
  // Only the touched records change, not their asset or issue: the index needs no pass.
  const ctx = { ...held, index: new ThreatIndex(held.state.threats) };
  for (const { threatId } of plan.requeue) {
    updateThreat(ctx, threatId, refusalCleared);
    enqueue(ctx, threatId, {}, opts.now);
  }
  return isClean(ctx.changes) ? null : commitOf(ctx.state, ctx.changes);
}
