import { slaBreachAdded } from "./transitions.js";
import { QueueClass, type ActionModule } from "../../actions/types.js";
import type { FeatureAction } from "../../plan/plan.js";
import type { SlaBreach } from "./plan.js";

/** The SLA's breach label on an open issue past due, added once per due date: a person's removal stands. */
const breach: ActionModule<SlaBreach, null> = {
  kind: "feature",
  priority: () => QueueClass.other,
  spendsGitHubBudget: () => true,
  mappingRepair: false,
  // Under the audit line's name (an update of the issue: its breach label).
  describe: (action) => ({ action: "update", labels: [action.label], detail: "SLA breached" }),
  // Adding a label twice gives the same issue: no intent, and no read first.
  async send(action, io) {
    await io.github.addLabels(action.repo, action.number, [action.label]);
    return null;
  },
  asAsked: () => Promise.resolve(null),
  settle: (action) => ({
    record: slaBreachAdded,
    events: [
      {
        type: "sla_breach_labeled",
        threatId: action.threatId,
        issue: { repo: action.repo, number: action.number },
      },
    ],
    commit: "checkpoint",
  }),
};

// Sound: the registry hands this module only the SLA's `breach` steps (features/registry.ts).
export const slaBreachAction = breach as unknown as ActionModule<FeatureAction, unknown>;
