import type { FeatureAction } from "../../plan/plan.js";

/** The writes of a recurrence (contract, "Recurrence"): the new issue (`recur`) and the comment on the old one. */
export interface RecurAction extends FeatureAction {
  feature: "recurrence";
  step: "recur";
  decided: true;
  writesBody: true;
  repo: string;
  occurrence: number;
  previous: { repo: string; number: number };
  title: string;
  body: string;
  labels: string[];
  assignees: string[];
  hash: string;
}

export interface RecurNote extends FeatureAction {
  feature: "recurrence";
  step: "step_comment";
  decided: true;
  repo: string;
  number: number;
  body: string;
}
