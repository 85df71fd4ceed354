import type { QueueEntry, ThreatRecord } from "../../state/index.js";
import { SEVERITIES } from "../../shared/severity.js";
import { QueueClass } from "../plan/queue-class.js";
import { formatExternalId } from "../intake/normalize.js";
import { desiredIssueState } from "../plan/policy.js";
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
export type QueueState = Pick<EngineState, "queue" | "threats">;

/** Records new work for a threat (the shell of `withWork`: it numbers a new entry). */
export function enqueue(ctx: StateCtx, threatId: string, work: NewWork, nowIso: string): void {
  const current = ctx.state.queue[threatId];
  const seq = current ? current.seq : nextSeq(ctx);
  putQueue(ctx, threatId, withWork(current, work, { seq, now: nowIso }));
}

/**
 * The queue class of a threat's work (the classes of the action modules, actions/types.ts), from
 * its record: the step its plan takes first. A person's change → verdict; an issue whose state
 * differs from what the threat's status asks (or whose asset was removed) → close/reopen; no issue
 * yet, or an issue whose link is not written yet → create; else content or a re-pointed link →
 * the rest.
 */
export function dueClass(record: ThreatRecord | undefined, entry: QueueEntry): QueueClass {
  const issue = record?.issue;
  // A person's change needs the issue it was seen on; without one the plan is a create (or adopt).
  if (!issue) return QueueClass.create;
  if (entry.person) return QueueClass.verdict;
  if (record.gone)
    return issue.state === "open" && !record.closedForRemoval ? QueueClass.state : QueueClass.other;
  const desired = desiredIssueState(record.status);
  if (desired !== null && desired.state !== issue.state) return QueueClass.state;
  // A create is finished by its link: an issue whose link is not written yet (a drain interrupted
  // between the two) keeps the create class it was queued in, as `status` shows it.
  return record.link === formatExternalId(issue) ? QueueClass.other : QueueClass.create;
}

export interface DueItem {
  threatId: string;
  entry: QueueEntry;
  priority: QueueClass;
  /** Severity rank 0 (informational) .. 4 (critical), from the threat's record. */
  severity: number;
}

function dueItem(state: QueueState, threatId: string, entry: QueueEntry): DueItem {
  const record = state.threats.get(threatId);
  return { threatId, entry, priority: dueClass(record, entry), severity: record?.severity ?? 0 };
}

export function compareDue(a: DueItem, b: DueItem): number {
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
