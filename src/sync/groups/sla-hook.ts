import type { ThreatRecord } from "../../state/index.js";

/**
 * The SLA due date of a member, for its group's "earliest due date": the SLA feature keeps it on
 * the threat's record (as `slaDue`, YYYY-MM-DD or an ISO time); until it does, no member has one.
 * Read here only, so that the one place to change is this function.
 */
export function dueDateOf(record: ThreatRecord): string | null {
  if (!("slaDue" in record)) return null;
  const due: unknown = record.slaDue;
  return typeof due === "string" && /^\d{4}-\d{2}-\d{2}/.test(due) ? due.slice(0, 10) : null;
}
