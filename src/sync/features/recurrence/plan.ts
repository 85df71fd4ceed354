import type { IssueRecord } from "../../schema.js";
import { newIssue, type Action, type Decider, type PlanInput } from "../../plan/plan.js";
import { desiredIssueState } from "../../plan/policy.js";
import type { Rendering } from "../types.js";
import { forOccurrence } from "./occurrence.js";
import type { RecurAction, RecurNote } from "./actions.js";
import { occurrenceOf, recurrenceOf } from "./slice.js";
import { acceptanceOf } from "../acceptance/slice.js";

/** The recurrence's clause before the core's, pure: a new issue instead of a reopen, then the comment. */
export function recurrenceDecider(base: Rendering | null): Decider {
  return { issue: (input, issue) => planRecurrence(input, issue, base) };
}

function recurredComment(next: { repo: string; number: number }, expired: boolean): string {
  const why = expired ? "its risk acceptance ended" : "the platform reports it as `unsolved` again";
  return `This threat recurred (${why}): it continues in ${next.repo}#${next.number}. This issue stays closed.`;
}

function planRecurrence(input: PlanInput, issue: IssueRecord, base: Rendering | null): Action[] | null {
  const record = input.record;
  const from = recurrenceOf(record).from;
  if (from && !from.noted) {
    const note: RecurNote = {
      kind: "feature",
      feature: "recurrence",
      step: "step_comment",
      decided: true,
      threatId: input.threatId,
      repo: from.repo,
      number: from.number,
      body: recurredComment(issue, acceptanceOf(record)?.step === "expired"),
    };
    return [note];
  }
  const threat = input.threat.kind === "present" ? input.threat.value : null;
  if (!threat || !base || record?.closedForRemoval) return null;
  if (issue.state !== "closed" || desiredIssueState(threat.status)?.state !== "open") return null;
  const occurrence = occurrenceOf(record) + 1;
  const previous = { repo: issue.repo, number: issue.number };
  const rendered = forOccurrence(base, input.threatId, occurrence, previous);
  const recur: RecurAction = newIssue(
    {
      kind: "feature",
      feature: "recurrence",
      step: "recur",
      decided: true,
      writesBody: true,
      threatId: input.threatId,
      occurrence,
      previous,
    } as const,
    input.route,
    rendered,
  );
  return [recur];
}
