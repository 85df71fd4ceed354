import type { IssueSnapshot } from "../../../github/index.js";
import type { EngineEvent } from "../../../shared/index.js";
import { slaMilestoneSet } from "./transitions.js";
import { QueueClass, type ActionModule } from "../../actions/types.js";
import type { FeatureAction } from "../../plan/plan.js";
import type { SlaMilestone } from "./plan.js";

/** What putting an issue into its milestone answered; `issue` null where the repository has none. */
interface MilestoneAnswer {
  issue: IssueSnapshot | null;
  created: boolean;
}

/** Puts an issue into its due date's weekly milestone, made on demand (none there: done). */
const milestone: ActionModule<SlaMilestone, MilestoneAnswer> = {
  kind: "feature",
  priority: () => QueueClass.other,
  spendsGitHubBudget: () => true,
  mappingRepair: false,
  // Its audit name: an `update`; making the milestone first is a `milestone`.
  describe: (action) => ({ action: "update", detail: `milestone "${action.title}"` }),
  milestoneOf: (action) => ({ repo: action.repo, title: action.title }),
  // The milestone's create is idempotent by title and setting it twice gives the same issue: no intent.
  async send(action, io) {
    const found = io.workflow
      ? await io.workflow.milestoneNumber(action.repo, action.title, action.dueOn)
      : null;
    if (found === null) return { issue: null, created: false };
    const issue = await io.github.updateIssue(action.repo, action.number, { milestone: found.number });
    return { issue, created: found.created };
  },
  asAsked: () => Promise.resolve({ issue: null, created: false }),
  settle(action, answer) {
    const at = { repo: action.repo, number: action.number };
    const events: EngineEvent[] = [];
    if (answer.created)
      events.push({ type: "milestone_created", threatId: action.threatId, issue: at, detail: action.title });
    if (answer.issue)
      events.push({ type: "milestone_set", threatId: action.threatId, issue: at, detail: action.title });
    return {
      record: (r) => slaMilestoneSet(r, action.title),
      events,
      // A state in the answer the connector did not write is a person's (as for a content PATCH).
      ...(answer.issue ? { answered: { issue: answer.issue, mayShowPerson: true } } : {}),
      commit: "checkpoint",
    };
  },
};

// Sound: the registry hands this module only the SLA's `milestone` steps (features/registry.ts).
export const slaMilestoneAction = milestone as unknown as ActionModule<FeatureAction, unknown>;
