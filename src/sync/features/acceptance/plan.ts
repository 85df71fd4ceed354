import type { IssueRecord, PersonChange } from "../../schema.js";
import type { Action, Decider, PlanInput } from "../../plan/plan.js";
import { acceptanceDue } from "./transitions.js";
import { acceptanceOf, acceptanceSoughtOf } from "./slice.js";
import { isRiskAcceptance, type AcceptancePolicy } from "./policy.js";
import { acceptedComment, EXPIRED_COMMENT, warnComment } from "./comments.js";
import type { AcceptanceAction } from "./actions.js";

/** The acceptance's clauses before the core's, pure, from the record and `now` (no read); null: none. */

/** What the clauses are made with for one plan: the settings, the time, and how a recurrence is taken. */
export interface AcceptanceAt {
  policy: AcceptancePolicy;
  now: number;
  /** `recurrence: new_issue`: what follows the end is the recurrence plug-in's new issue, not a reopen. */
  newIssue: boolean;
}

export function acceptanceDecider(at: AcceptanceAt): Decider {
  return {
    person: (input, person) => planRiskAcceptance(input, person, at),
    issue: (input, issue) => planAcceptanceStep(input, issue, at) ?? planAcceptanceRecovery(input, issue, at),
  };
}

const one = (action: AcceptanceAction): Action[] => [action];

/** A person's "not planned" close with the acceptance label: `accepted` instead of the usual verdict. */
function planRiskAcceptance(input: PlanInput, person: PersonChange, at: AcceptanceAt): Action[] | null {
  const { policy, now } = at;
  if (!isRiskAcceptance(person, policy) || input.threat.kind !== "present") return null;
  return one({
    kind: "feature",
    feature: "acceptance",
    step: "accept_risk",
    decided: true,
    threatId: input.threatId,
    repo: person.repo,
    number: person.number,
    person,
    now,
    defaultMs: policy.defaultMs,
    maxMs: policy.maxMs,
    note: (until) => policy.note(person, until),
  });
}

/** An `accepted` threat whose acceptance a lost state forgot: the connector's comments say until when. */
function planAcceptanceRecovery(input: PlanInput, issue: IssueRecord, at: AcceptanceAt): Action[] | null {
  const record = input.record;
  if (!record || acceptanceOf(record) || issue.state !== "closed") return null;
  if (input.threat.kind !== "present" || input.threat.value.status !== "accepted") return null;
  if (acceptanceSoughtOf(record) === record.updatedAt) return null;
  return one({
    kind: "feature",
    feature: "acceptance",
    step: "recover_acceptance",
    decided: true,
    threatId: input.threatId,
    repo: issue.repo,
    number: issue.number,
    version: record.updatedAt,
    now: at.now,
  });
}

/** The next step of an acceptance the record holds, when one is due at `now`. */
function planAcceptanceStep(input: PlanInput, issue: IssueRecord, at: AcceptanceAt): Action[] | null {
  const acceptance = acceptanceOf(input.record);
  const { policy, now } = at;
  if (!acceptance || input.threat.kind !== "present") return null;
  if (!acceptanceDue(acceptance, now, policy.warnMs)) return null;
  const until = Date.parse(acceptance.until);
  const on = {
    kind: "feature" as const,
    feature: "acceptance" as const,
    decided: true as const,
    threatId: input.threatId,
    repo: issue.repo,
    number: issue.number,
  };
  switch (acceptance.step) {
    case "accepted":
      return one({ ...on, step: "step_comment", body: acceptedComment(until) });
    case "announced":
      // Past its end already (no cycle ran in the warning's window): it ends without a warning.
      if (now < until) return one({ ...on, step: "warn_expiry", body: warnComment(until) });
      return one({ ...on, step: "expire_risk" });
    case "warned":
      return one({ ...on, step: "expire_risk" });
    case "expired":
      // The recurrence plug-in, asked next, opens the new issue (the core would reopen this one).
      if (issue.state === "open" || at.newIssue) return null;
      return [
        {
          kind: "update",
          threatId: input.threatId,
          repo: issue.repo,
          number: issue.number,
          state: "open",
          stateReason: "reopened",
          comment: EXPIRED_COMMENT,
        },
      ];
  }
}
