import type { ThreatRecord } from "../../../state/index.js";
import { breachDue, weeklyMilestone } from "./transitions.js";

/**
 * The planner's SLA clause (contract, "Workflow": SLA), pure: decided from the threat's record and
 * `now` alone, so that a breach needs no read of the threat or of its issue. Its steps go beside
 * a content update or a link, never with a change of the issue's state (plan.ts).
 */

/** What the clause needs of the config and the clock (plan-for.ts fills it when `sla` is on). */
export interface SlaPolicy {
  nowMs: number;
  breachLabel: string;
  /** `sla.milestones: weekly`, and the engine can reach milestones. */
  weekly: boolean;
}

export type SlaAction =
  /** Adds the breach label to an open issue past its due date: one write, once per due date. */
  | { kind: "sla_breach"; threatId: string; repo: string; number: number; label: string }
  /** Puts an issue into the weekly milestone of its due date, made on demand. */
  | {
      kind: "sla_milestone";
      threatId: string;
      repo: string;
      number: number;
      title: string;
      dueOn: string;
    };

interface SlaPlanInput {
  threatId: string;
  record: ThreatRecord | undefined;
  sla?: SlaPolicy | undefined;
}

export function planSla(input: SlaPlanInput): SlaAction[] {
  const { record, sla: policy } = input;
  const issue = record?.issue;
  if (!policy || !record?.sla || !issue || record.gone || issue.state !== "open") return [];
  const at = { threatId: input.threatId, repo: issue.repo, number: issue.number };
  const actions: SlaAction[] = [];
  if (breachDue(record, policy.nowMs)) actions.push({ kind: "sla_breach", ...at, label: policy.breachLabel });
  if (policy.weekly) {
    const milestone = weeklyMilestone(record.sla);
    if (record.sla.milestone !== milestone.title)
      actions.push({ kind: "sla_milestone", ...at, ...milestone });
  }
  return actions;
}

/**
 * The weekly milestone a new issue is created in (the create's `milestone`: no second write), when
 * the threat has a due date and milestones are on.
 */
export function milestoneOnCreate(input: SlaPlanInput): { milestone?: { title: string; dueOn: string } } {
  const sla = input.record?.sla;
  return input.sla?.weekly && sla ? { milestone: weeklyMilestone(sla) } : {};
}
