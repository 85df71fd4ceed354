import type { PersonChange } from "../../schema.js";
import type { FeatureAction } from "../../plan/plan.js";

/** A risk acceptance's steps, through the core's kind `feature`, each a decider's answer. */
interface AcceptanceStep<S extends string> extends FeatureAction {
  feature: "acceptance";
  step: S;
  repo: string;
  number: number;
  decided: true;
}

export interface AcceptRisk extends AcceptanceStep<"accept_risk"> {
  person: PersonChange;
  /** When the close is processed: the end is counted from it. */
  now: number;
  defaultMs: number;
  maxMs: number;
  /** The PATCH's status note for the end it gets (YYYY-MM-DD). */
  note: (until: string) => string;
}

/** The comment naming the acceptance's end. */
export interface AcceptedComment extends AcceptanceStep<"step_comment"> {
  body: string;
}

/** The warning before the end. */
export interface WarnExpiry extends AcceptanceStep<"warn_expiry"> {
  body: string;
}

/** The end: the platform gets `unsolved` again. */
export type ExpireRisk = AcceptanceStep<"expire_risk">;

/** The connector's own acceptance comments on a closed issue, read to restore an acceptance the state lost. */
export interface RecoverAcceptance extends AcceptanceStep<"recover_acceptance"> {
  /** The threat's version it is sought for (the search is made once per version). */
  version: string;
  now: number;
}

export type AcceptanceAction = AcceptRisk | AcceptedComment | WarnExpiry | ExpireRisk | RecoverAcceptance;
