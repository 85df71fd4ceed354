import type { IssueRecord, ThreatRecord } from "../../schema.js";
import { withAcceptance } from "../acceptance/slice.js";
import { recurrenceOf, withRecurrence } from "./slice.js";

/** Pure transitions of a recurrence (contract, "Recurrence"). */

/** A new issue for the next occurrence: mapped to it, the old kept until the comment names the new. */
export function recurred(record: ThreatRecord, issue: IssueRecord, occurrence: number): ThreatRecord {
  const { deletedIssue: _gone, ...rest } = withAcceptance(record, { held: undefined });
  const old = record.issue;
  const moved = old && (old.repo !== issue.repo || old.number !== issue.number);
  return withRecurrence(
    { ...rest, issue },
    { occurrence, from: moved ? { repo: old.repo, number: old.number } : recurrenceOf(record).from },
  );
}

/** The comment on the old issue naming the new one is there (`recur`); another step's is not its own. */
export function recurrenceNoted(record: ThreatRecord, step: string): ThreatRecord {
  const from = recurrenceOf(record).from;
  if (step !== "recur" || !from) return record;
  return withRecurrence(record, { from: { ...from, noted: true } });
}
