import type { QueueEntry, ThreatBrief } from "../schema.js";
import { SEVERITIES } from "../../shared/severity.js";
import { QueueClass } from "./queue-class.js";
import { issueStateStep } from "./plan.js";
import { formatExternalId } from "../render/normalize.js";
import type { EngineState } from "../records/threat-records.js";
import { subjectKind, type Subject, type SubjectKind } from "../records/subject.js";

/**
 * The queue's order (contract, "Priorities"), derived at each drain: each threat's work in its
 * plan's class (`dueClass`), then severity, then age; every group after every threat's work.
 */

type QueueState = Pick<EngineState, "queue" | "threats">;

/**
 * The queue class of a threat's work, `priorityOf(plan(...))`, decided from the record's brief
 * alone so that ordering a large queue renders nothing; test/sync/queue.test.ts checks the two agree.
 */
export function dueClass(record: ThreatBrief | undefined, entry: QueueEntry): QueueClass {
  // A person's change on the issue, kept in the entry: their verdict, or its acceptance.
  const person = entry.person !== undefined;
  // A backfill's work (a feature's, for issues made before it was configured) waits for all other.
  if (entry.later === true && !person) return QueueClass.later;
  const issue = record?.issue;
  // No issue: the plan adopts the issue the platform names, or creates one (a create either way).
  if (!issue) return QueueClass.create;
  if (person) return QueueClass.verdict;
  // An existing issue: a state change first (issueStateStep, as the plan makes it).
  const status = record.gone === true ? null : record.status;
  if (issueStateStep(status, issue, record.closedForRemoval === true) !== null) return QueueClass.state;
  // A create is finished by its link: an issue whose link is not written yet keeps the create class.
  return record.link === formatExternalId(issue) ? QueueClass.other : QueueClass.create;
}

/** A subject due now (its `id` a threat's id, or a group's key), with what orders it. */
export interface DueItem extends Subject {
  entry: QueueEntry;
  priority: QueueClass;
  /** Severity rank 0 (informational) .. 4 (critical), from the threat's record. */
  severity: number;
}

function dueItem(state: QueueState, id: string, entry: QueueEntry): DueItem {
  const kind = subjectKind(id);
  if (kind === "group") return { id, kind, entry, priority: QueueClass.other, severity: 0 };
  // The brief, not the record: building records would dominate a large queue's ordering.
  const record = state.threats.brief(id);
  return { id, kind, entry, priority: dueClass(record, entry), severity: record?.severity ?? 0 };
}

const KIND_ORDER: Record<SubjectKind, number> = { threat: 0, group: 1 };

function compareDue(a: DueItem, b: DueItem): number {
  return (
    KIND_ORDER[a.kind] - KIND_ORDER[b.kind] ||
    a.priority - b.priority ||
    b.severity - a.severity ||
    a.entry.seq - b.entry.seq
  );
}

/** Which of the due work `dueWork` answers (all of it without). */
export interface DueFilter {
  /** Threats' work of these classes at most (a group's class is its plan's: groups are all kept). */
  upTo?: QueueClass;
  keep?: (item: DueItem) => boolean;
}

/** Whether a threat's entry can be of a class at most `upTo`, from the entry alone (verdicts are people's changes). */
function mayReach(entry: QueueEntry, upTo: QueueClass): boolean {
  return upTo > QueueClass.verdict || entry.person !== undefined;
}

/** What is due at `nowMs` (of what `filter` keeps), in order; entries backing off are left out first. */
export function dueWork(state: QueueState, nowMs: number, filter: DueFilter = {}): DueItem[] {
  const { upTo, keep } = filter;
  const due: DueItem[] = [];
  const queue = state.queue;
  // Not Object.entries: a pair array per entry would dominate a large queue's walk.
  for (const id in queue) {
    const entry = queue[id];
    if (entry === undefined || !Object.hasOwn(queue, id)) continue;
    if (entry.notBefore !== undefined && entry.notBefore > nowMs) continue;
    const threat = subjectKind(id) === "threat";
    if (upTo !== undefined && threat && !mayReach(entry, upTo)) continue;
    const item = dueItem(state, id, entry);
    if (upTo !== undefined && threat && item.priority > upTo) continue;
    if (keep === undefined || keep(item)) due.push(item);
  }
  return due.sort(compareDue);
}

/** Threat ids in the order their work is done; entries backing off until later are left out. */
export function orderedQueue(state: QueueState, nowMs: number): string[] {
  return dueWork(state, nowMs).map((d) => d.id);
}

const PRIORITY_NAMES = ["verdict", "close_reopen", "create", "update", "backfill"] as const;

/** The backlog's names: the threats' classes, then the groups' subjects. */
export const BACKLOG_NAMES = [...PRIORITY_NAMES, "group"] as const;

export interface QueueSummary {
  total: number;
  byAction: Record<string, number>;
  bySeverity: Record<string, number>;
  failing: number;
}

/** The backlog by action and severity (`status`, /metrics, the sync summary), derived like the order. */
export function queueSummary(state: QueueState): QueueSummary {
  const summary: QueueSummary = { total: 0, byAction: {}, bySeverity: {}, failing: 0 };
  const queue = state.queue;
  for (const threatId in queue) {
    const entry = queue[threatId];
    if (entry === undefined || !Object.hasOwn(queue, threatId)) continue;
    const item = dueItem(state, threatId, entry);
    summary.total += 1;
    const action = item.kind === "group" ? "group" : PRIORITY_NAMES[item.priority];
    summary.byAction[action] = (summary.byAction[action] ?? 0) + 1;
    if (item.kind === "threat") {
      const severity = SEVERITIES[item.severity] ?? "informational";
      summary.bySeverity[severity] = (summary.bySeverity[severity] ?? 0) + 1;
    }
    if (entry.lastError !== undefined) summary.failing += 1;
  }
  return summary;
}
