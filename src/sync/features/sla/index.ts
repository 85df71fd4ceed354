import type { Feature } from "../types.js";
import { noteBreachLabel, slaOnVersion } from "./intake.js";
import { slaClock } from "./clock.js";
import { formatSla, storedSlaCounts } from "./counts.js";
import { milestoneOnCreate, planSla, slaPolicy } from "./plan.js";
import { slaShown, slaSinceRecovered } from "./transitions.js";
import { slaOf } from "./slice.js";
import { parseSlaSince } from "../../../shared/index.js";
import { slaBreachAction } from "./breach-action.js";
import { slaMilestoneAction } from "./milestone-action.js";

/** The SLA (contract, "Workflow": SLA) as a plug-in: due date, breach label, weekly milestone. */
export const sla: Feature = {
  name: "sla",
  configKey: "sla",
  record: {
    onThreatVersion: slaOnVersion,
    onIssueChange: noteBreachLabel,
    // The issue's hidden start line and its milestone: what a lost state or an older due date left.
    onIssueFound: (record, issue) =>
      slaSinceRecovered(record, parseSlaSince(issue.body), issue.milestone ?? null),
  },
  plan: {
    threat: (ctx, threatId, record) => planSla({ threatId, record, sla: slaPolicy(ctx) }),
    viewOf: (record, nowMs) => slaShown(slaOf(record), nowMs),
    createWith: milestoneOnCreate,
  },
  clock: slaClock,
  actions: { modules: { breach: slaBreachAction, milestone: slaMilestoneAction } },
  status: {
    counts: storedSlaCounts,
    line: formatSla,
    // Contract, "Workflow": the SLA's gauges, read from its status counts once a scrape.
    gauges: [
      {
        name: "threatbridge_sla_breached_issues",
        help: "Open issues past their SLA due date (0 when sla is not configured)",
        count: "breached",
      },
      {
        name: "threatbridge_sla_due_soon_issues",
        help: "Open issues due within 7 days and not yet past their SLA due date (0 when sla is not configured)",
        count: "dueWithin7Days",
      },
    ],
  },
};
