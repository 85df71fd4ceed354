import type { PersonChange, QueueEntry, State } from "../state/index.js";
import { SEVERITIES } from "../shared/severity.js";

/**
 * The queue of due work: one entry per threat, kept in the state file so that work outlasting a
 * cycle (GitHub's write budget) survives restarts. Order (contract): verdicts from people first,
 * then closes and reopens, then new issues by severity (critical first), then the rest; ties by age.
 */

export function enqueue(
  state: State,
  threatId: string,
  what: { priority: number; severity: number; person?: PersonChange },
  nowIso: string,
): void {
  const current = state.queue[threatId];
  if (current) {
    current.priority = Math.min(current.priority, what.priority);
    current.severity = what.severity;
    if (what.person) current.person = what.person;
    // New information: retry now rather than after the back-off of an earlier failure.
    delete current.notBefore;
    return;
  }
  state.seq += 1;
  const entry: QueueEntry = {
    priority: what.priority,
    severity: what.severity,
    seq: state.seq,
    enqueuedAt: nowIso,
    attempts: 0,
  };
  if (what.person) entry.person = what.person;
  state.queue[threatId] = entry;
}

export function compareEntries(a: QueueEntry, b: QueueEntry): number {
  return a.priority - b.priority || b.severity - a.severity || a.seq - b.seq;
}

/** Threat ids in the order their work is done; entries backing off until later are left out. */
export function orderedQueue(state: State, nowMs: number): string[] {
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

export function queueSummary(state: State): QueueSummary {
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
