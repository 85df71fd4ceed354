import type { IssueRecord, PersonChange } from "../../state/index.js";
import { acceptanceDue } from "../transitions/acceptance.js";
import { isRiskAcceptance } from "./acceptance-policy.js";
import { acceptedComment, EXPIRED_COMMENT, recurredComment, warnComment } from "./acceptance-comments.js";
import { desiredIssueState } from "./policy.js";
import type { AcceptanceAction, AcceptanceInput, ExpiryReopen } from "./acceptance-actions.js";

type Planned = Array<AcceptanceAction | ExpiryReopen>;

/**
 * The planner's clauses for risk acceptance and recurrence (contract, "Risk acceptance",
 * "Recurrence"), pure: each step is decided from the record and `now`, so the time-driven ones (the
 * warning, the end) need no read of GitHub or the platform. Each answers null when it has nothing
 * to say, and the rest of the planner goes on.
 */

/** A person's "not planned" close with the acceptance label: `accepted` instead of the usual verdict. */
export function planRiskAcceptance(input: AcceptanceInput, person: PersonChange): Planned | null {
  const policy = input.policy.acceptance;
  if (!policy || !isRiskAcceptance(person, policy) || input.threat.kind !== "present") return null;
  const now = input.now;
  if (now === undefined) return null;
  return [
    {
      kind: "accept_risk",
      threatId: input.threatId,
      repo: person.repo,
      number: person.number,
      person,
      now,
      defaultMs: policy.defaultMs,
      maxMs: policy.maxMs,
      note: (until) => policy.note(person, until),
    },
  ];
}

/**
 * A threat the platform holds as `accepted` whose closed issue the state knows but not its
 * acceptance: the state was lost and rebuilt from the streams and the issues' markers. The
 * connector's own comments on the issue say until when it was accepted (and whether the warning
 * went out), so that it still ends, warned, on time. Sought once per version of the threat.
 */
export function planAcceptanceRecovery(input: AcceptanceInput, issue: IssueRecord): Planned | null {
  const record = input.record;
  if (!input.policy.acceptance || !record || record.acceptance || issue.state !== "closed") return null;
  if (input.threat.kind !== "present" || input.threat.value.status !== "accepted") return null;
  if (record.acceptanceSought === record.updatedAt || input.now === undefined) return null;
  return [
    {
      kind: "recover_acceptance",
      threatId: input.threatId,
      repo: issue.repo,
      number: issue.number,
      version: record.updatedAt,
      now: input.now,
    },
  ];
}

/** The next step of an acceptance the record holds, when one is due at `now`. */
export function planAcceptanceStep(input: AcceptanceInput, issue: IssueRecord): Planned | null {
  const acceptance = input.record?.acceptance;
  const policy = input.policy.acceptance;
  const now = input.now;
  if (!acceptance || !policy || now === undefined || input.threat.kind !== "present") return null;
  if (!acceptanceDue(acceptance, now, policy.warnMs)) return null;
  const until = Date.parse(acceptance.until);
  const at = { threatId: input.threatId, repo: issue.repo, number: issue.number };
  switch (acceptance.step) {
    case "accepted":
      return [{ kind: "step_comment", ...at, step: "accept", body: acceptedComment(until) }];
    case "announced":
      // Past its end already (no cycle ran in the warning's window): it ends without a warning.
      if (now < until) return [{ kind: "warn_expiry", ...at, body: warnComment(until) }];
      return [{ kind: "expire_risk", ...at }];
    case "warned":
      return [{ kind: "expire_risk", ...at }];
    case "expired":
      if (issue.state === "open") return null;
      if (input.policy.recurrence === "new_issue") return planRecurrence(input, issue);
      return [
        {
          kind: "update",
          ...at,
          state: "open",
          stateReason: "reopened",
          comment: EXPIRED_COMMENT,
        },
      ];
  }
}

/**
 * `recurrence: new_issue`: a threat `unsolved` again whose issue is closed gets a new issue instead
 * of a reopen; then the old one gets a comment naming it. Null under `reopen` (today's behaviour).
 */
export function planRecurrence(input: AcceptanceInput, issue: IssueRecord): Planned | null {
  if (input.policy.recurrence !== "new_issue") return null;
  const record = input.record;
  const from = record?.recurredFrom;
  if (from && !from.noted) {
    return [
      {
        kind: "step_comment",
        threatId: input.threatId,
        repo: from.repo,
        number: from.number,
        step: "recur",
        body: recurredComment(issue, record.acceptance?.step === "expired"),
      },
    ];
  }
  const threat = input.threat.kind === "present" ? input.threat.value : null;
  if (!threat || !input.renderOccurrence || record?.closedForRemoval) return null;
  if (issue.state !== "closed" || desiredIssueState(threat.status)?.state !== "open") return null;
  const occurrence = (record?.occurrence ?? 1) + 1;
  const rendered = input.renderOccurrence(occurrence, { repo: issue.repo, number: issue.number });
  return [
    {
      kind: "recur",
      threatId: input.threatId,
      repo: input.route.repo,
      occurrence,
      previous: { repo: issue.repo, number: issue.number },
      get title() {
        return rendered.issue.title;
      },
      get body() {
        return rendered.issue.body;
      },
      get labels() {
        return rendered.issue.labels;
      },
      assignees: input.route.assignees,
      hash: rendered.hash,
    },
  ];
}
