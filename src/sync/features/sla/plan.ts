import type { ThreatRecord } from "../../schema.js";
import type { CreateAttributes, FeatureAction } from "../../plan/plan.js";
import { breachDue, weeklyMilestone } from "./transitions.js";
import { slaOf } from "./slice.js";
import type { FeatureContext } from "../types.js";

/** The SLA clause, pure, from the record and `now`: beside an update or a link, never a state change. */

/** What the clause needs of the config and the clock (`slaPolicy` fills it when `sla` is on). */
export interface SlaPolicy {
  nowMs: number;
  breachLabel: string;
  /** `sla.milestones: weekly`, and the engine can reach milestones. */
  weekly: boolean;
}

/** Adds the breach label to an open issue past its due date: one write, once per due date. */
export interface SlaBreach extends FeatureAction {
  feature: "sla";
  step: "breach";
  repo: string;
  number: number;
  label: string;
}

/** Puts an issue into the weekly milestone of its due date, made on demand. */
export interface SlaMilestone extends FeatureAction {
  feature: "sla";
  step: "milestone";
  repo: string;
  number: number;
  title: string;
  dueOn: string;
}

export type SlaAction = SlaBreach | SlaMilestone;

export function slaPolicy(ctx: FeatureContext): SlaPolicy {
  const sla = ctx.config.sla;
  return {
    nowMs: ctx.clock.now(),
    breachLabel: sla?.breach_label ?? "",
    // Without the milestones API (the engine's own test fakes) the milestones are not planned.
    weekly: sla?.milestones === "weekly" && ctx.workflow !== undefined,
  };
}

interface SlaPlanInput {
  threatId: string;
  record: ThreatRecord | undefined;
  sla?: SlaPolicy | undefined;
}

export function planSla(input: SlaPlanInput): SlaAction[] {
  const { record, sla: policy } = input;
  const issue = record?.issue;
  const sla = slaOf(record);
  if (!policy || !record || !sla || !issue || record.gone || issue.state !== "open") return [];
  const at = { kind: "feature" as const, feature: "sla" as const, threatId: input.threatId };
  const where = { repo: issue.repo, number: issue.number };
  const actions: SlaAction[] = [];
  if (breachDue(record, policy.nowMs))
    actions.push({ ...at, step: "breach", ...where, label: policy.breachLabel });
  if (policy.weekly) {
    const milestone = weeklyMilestone(sla);
    if (sla.milestone !== milestone.title) actions.push({ ...at, step: "milestone", ...where, ...milestone });
  }
  return actions;
}

/** The weekly milestone a new issue is created in (no second write), when it has a due date. */
export function milestoneOnCreate(ctx: FeatureContext, record: ThreatRecord): CreateAttributes {
  const sla = slaOf(record);
  return slaPolicy(ctx).weekly && sla ? { milestone: weeklyMilestone(sla) } : {};
}
