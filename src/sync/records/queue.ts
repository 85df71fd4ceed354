import type { QueueEntry, ThreatBrief } from "../../state/index.js";
import { SEVERITIES } from "../../shared/severity.js";
import type { QueueClass } from "../plan/queue-class.js";
import { planClass } from "../plan/plan-class.js";
import type { EngineState } from "./threat-records.js";
import { withWork, type NewWork } from "../transitions/due-work.js";
import { nextSeq, putQueue, type StateCtx } from "./state-updates.js";

/**
 * The queue of due work (derived from the state, not stored beside it). The
 * state stores one entry per threat with only what cannot be derived (transitions/due-work.ts);
 * what is due, and in what order, is `dueWork(state)`, a function of the entries and the threats'
 * records, computed once per drain. Order (contract, "Priorities"): verdicts from people first,
 * then closes and reopens, then new issues by severity (critical first), then the rest; ties by age.
 */

export { backoffMs } from "../transitions/due-work.js";

/** The part of the state the queue's order is derived from. */
type QueueState = Pick<EngineState, "queue" | "threats">;

/** Records new work for a threat (the shell of `withWork`: it numbers a new entry). */
export function enqueue(ctx: StateCtx, threatId: string, work: NewWork, nowIso: string): void {
  const current = ctx.state.queue[threatId];
  const seq = current ? current.seq : nextSeq(ctx);
  putQueue(ctx, threatId, withWork(current, work, { seq, now: nowIso }));
}

/**
 * The queue class of a threat's work: the class of the plan the planner makes for the threat as
 * its record holds it (plan/plan-class.ts); a person's change, kept in the entry, comes first.
 */
export function dueClass(record: ThreatBrief | undefined, entry: QueueEntry): QueueClass {
  return planClass(record, entry.person !== undefined);
}

interface DueItem {
  threatId: string;
  entry: QueueEntry;
  priority: QueueClass;
  /** Severity rank 0 (informational) .. 4 (critical), from the threat's record. */
  severity: number;
}

function dueItem(state: QueueState, threatId: string, entry: QueueEntry): DueItem {
  // The brief, not the record: building 100,000 records was most of a drain's ordering.
  const record = state.threats.brief(threatId);
  return { threatId, entry, priority: dueClass(record, entry), severity: record?.severity ?? 0 };
}

function compareDue(a: DueItem, b: DueItem): number {
  return a.priority - b.priority || b.severity - a.severity || a.entry.seq - b.entry.seq;
}

/** What is due at `nowMs`, in the order it is done; entries backing off until later are left out. */
export function dueWork(state: QueueState, nowMs: number): DueItem[] {
  const due: DueItem[] = [];
  for (const [threatId, entry] of Object.entries(state.queue)) {
    if (entry.notBefore === undefined || entry.notBefore <= nowMs) due.push(dueItem(state, threatId, entry));
  }
  return due.sort(compareDue);
}

/** Threat ids in the order their work is done; entries backing off until later are left out. */
export function orderedQueue(state: QueueState, nowMs: number): string[] {
  return dueWork(state, nowMs).map((d) => d.threatId);
}

export const PRIORITY_NAMES = ["verdict", "close_reopen", "create", "update"] as const;

export interface QueueSummary {
  total: number;
  byAction: Record<string, number>;
  bySeverity: Record<string, number>;
  failing: number;
}

/** The backlog by action and severity (`status`, /metrics, the sync summary), derived like the order. */
export function queueSummary(state: QueueState): QueueSummary {
  const summary: QueueSummary = { total: 0, byAction: {}, bySeverity: {}, failing: 0 };
  for (const [threatId, entry] of Object.entries(state.queue)) {
    const item = dueItem(state, threatId, entry);
    summary.total += 1;
    const action = PRIORITY_NAMES[item.priority];
    summary.byAction[action] = (summary.byAction[action] ?? 0) + 1;
    const severity = SEVERITIES[item.severity] ?? "informational";
    summary.bySeverity[severity] = (summary.bySeverity[severity] ?? 0) + 1;
    if (entry.lastError !== undefined) summary.failing += 1;
  }
  return summary;
}
