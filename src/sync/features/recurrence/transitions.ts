import type { IssueRecord, ThreatRecord } from "../../../state/index.js";

/** Pure transitions of a recurrence (contract, "Recurrence"). */

/** A new issue for the next occurrence: mapped to it, the old kept until the comment names the new. */
export function recurred(record: ThreatRecord, issue: IssueRecord, occurrence: number): ThreatRecord {
  const { acceptance: _over, deletedIssue: _gone, ...rest } = record;
  const old = record.issue;
  return {
    ...rest,
    issue,
    occurrence,
    ...(old && (old.repo !== issue.repo || old.number !== issue.number)
      ? { recurredFrom: { repo: old.repo, number: old.number } }
      : {}),
  };
}

/** The comment on the old issue naming the new one is there (`recur`); another step's is not its own. */
export function recurrenceNoted(record: ThreatRecord, step: string): ThreatRecord {
  if (step !== "recur" || !record.recurredFrom) return record;
  return { ...record, recurredFrom: { ...record.recurredFrom, noted: true } };
}
