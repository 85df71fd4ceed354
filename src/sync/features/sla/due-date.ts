import { utcDay } from "../../../shared/index.js";
import type { ThreatRecord } from "../../../state/index.js";

/**
 * The SLA due date of a member (the record's `sla.due`, config `sla`), as the day a group's
 * "earliest due date" shows; null for a member without one.
 */
export function dueDateOf(record: ThreatRecord): string | null {
  const due = record.sla?.due;
  if (due === undefined) return null;
  const ms = Date.parse(due);
  return Number.isFinite(ms) ? utcDay(ms) : null;
}
