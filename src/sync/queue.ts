import type { PendingView, PersonChange, QueueEntry, State } from "../state/index.js";
import { SEVERITIES } from "../shared/severity.js";
import { nextSeq, putQueue, type StateCtx } from "./state-updates.js";

/**
 * The queue of due work: one entry per threat, kept in the state file so that work outlasting a
 * cycle (GitHub's write budget) survives restarts. Order (contract): verdicts from people first,
 * then closes and reopens, then new issues by severity (critical first), then the rest; ties by age.
 */

export function enqueue(
  ctx: StateCtx,
  threatId: string,
  what: { priority: number; severity: number; person?: PersonChange; pending?: PendingView },
  nowIso: string,
): void {
  const current = ctx.state.queue[threatId];
  if (current) {
    // New information: retry now rather than after the back-off of an earlier failure.
    const { notBefore: _retryNow, pending, ...rest } = current;
    // A person's change keeps a create's view; a new version of the threat replaces it.
    const view = what.pending ?? (what.person ? pending : undefined);
    putQueue(ctx, threatId, {
      ...rest,
      priority: Math.min(current.priority, what.priority),
      severity: what.severity,
      ...(what.person ? { person: what.person } : {}),
      ...(view ? { pending: view } : {}),
    });
    return;
  }
  const entry: QueueEntry = {
    priority: what.priority,
    severity: what.severity,
    seq: nextSeq(ctx),
    enqueuedAt: nowIso,
    attempts: 0,
    ...(what.person ? { person: what.person } : {}),
    ...(what.pending ? { pending: what.pending } : {}),
  };
  putQueue(ctx, threatId, entry);
}

export function compareEntries(a: QueueEntry, b: QueueEntry): number {
  return a.priority - b.priority || b.severity - a.severity || a.seq - b.seq;
}

/** Threat ids in the order their work is done; entries backing off until later are left out. */
export function orderedQueue(state: Pick<State, "queue">, nowMs: number): string[] {
  return Object.entries(state.queue)
    .filter(([, e]) => e.notBefore === undefined || e.notBefore <= nowMs)
    .sort(([, a], [, b]) => compareEntries(a, b))
    .map(([id]) => id);
}

export const PRIORITY_NAMES = ["verdict", "close_reopen", "create", "update"] as const;

export interface QueueSummary {
  total: number;
  byAction: Record<string, number>;
  bySeverity: Record<string, number>;
  failing: number;
}

export function queueSummary(state: Pick<State, "queue">): QueueSummary {
  const summary: QueueSummary = { total: 0, byAction: {}, bySeverity: {}, failing: 0 };
  for (const entry of Object.values(state.queue)) {
    summary.total += 1;
    const action = PRIORITY_NAMES[entry.priority] ?? "update";
    summary.byAction[action] = (summary.byAction[action] ?? 0) + 1;
    const severity = SEVERITIES[entry.severity] ?? "informational";
    summary.bySeverity[severity] = (summary.bySeverity[severity] ?? 0) + 1;
    if (entry.lastError !== undefined) summary.failing += 1;
  }
  return summary;
}

/** Back-off after a failed attempt: 30 s doubling to at most one hour. */
export function backoffMs(attempts: number): number {
  return Math.min(3_600_000, 30_000 * 2 ** Math.max(0, attempts - 1));
}
