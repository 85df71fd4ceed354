import type { PersonChange, ThreatRecord } from "../../state/index.js";
import type { RenderedIssue } from "../render/index.js";
import type { Known } from "./known.js";
import type { Policy, Route } from "./policy.js";

/**
 * The actions of a risk acceptance and of a recurrence (members of the planner's `Action` union),
 * and what their clauses read of the planner's input: kept apart from plan.ts so that the clauses
 * (plan-acceptance.ts) and the planner do not import each other.
 */

export type AcceptanceAction =
  | {
      kind: "accept_risk";
      threatId: string;
      repo: string;
      number: number;
      person: PersonChange;
      /** When the close is processed: the end is counted from it. */
      now: number;
      defaultMs: number;
      maxMs: number;
      /** The PATCH's status note for the end it gets (YYYY-MM-DD). */
      note: (until: string) => string;
    }
  | {
      kind: "step_comment";
      threatId: string;
      repo: string;
      number: number;
      step: "accept" | "recur";
      body: string;
    }
  | { kind: "warn_expiry"; threatId: string; repo: string; number: number; body: string }
  | { kind: "expire_risk"; threatId: string; repo: string; number: number }
  /** The connector's own acceptance comments on a closed issue, read to restore an acceptance the state lost. */
  | {
      kind: "recover_acceptance";
      threatId: string;
      repo: string;
      number: number;
      /** The threat's version it is sought for (the search is made once per version). */
      version: string;
      now: number;
    }
  | {
      kind: "recur";
      threatId: string;
      repo: string;
      occurrence: number;
      previous: { repo: string; number: number };
      title: string;
      body: string;
      labels: string[];
      assignees: string[];
      hash: string;
    };

/** The reopen at an acceptance's end: the planner's `update` with the comment saying why. */
export interface ExpiryReopen {
  kind: "update";
  threatId: string;
  repo: string;
  number: number;
  state: "open";
  stateReason: "reopened";
  comment: string;
}

/** What the acceptance and recurrence clauses read of the planner's input (plan.ts `PlanInput`). */
export interface AcceptanceInput {
  threatId: string;
  threat: Known<{ status: string }>;
  record: ThreatRecord | undefined;
  route: Route;
  policy: Pick<Policy, "acceptance" | "recurrence">;
  now?: number | undefined;
  renderOccurrence?:
    | ((
        occurrence: number,
        previous: { repo: string; number: number },
      ) => { issue: RenderedIssue; hash: string })
    | undefined;
}
