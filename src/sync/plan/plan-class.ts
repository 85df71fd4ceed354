import type { ThreatBrief } from "../../state/index.js";
import { formatExternalId } from "../render/normalize.js";
import { issueStateStep } from "./plan.js";
import { QueueClass } from "./queue-class.js";

/**
 * The queue class (contract, "Priorities") of the plan the planner makes for a threat as its record
 * holds it: `priorityOf(plan(...))` (actions/index.ts) decided by the plan's own branches, read from
 * the record's brief alone. The queue orders every queued threat by it at each drain (100,000 and
 * more), where rendering each threat and building its actions would cost more than the drain.
 * test/sync/queue.test.ts checks it against `priorityOf(plan(...))` over every record shape.
 */
export function planClass(record: ThreatBrief | undefined, person: boolean): QueueClass {
  const issue = record?.issue;
  // No issue: the plan adopts the issue the platform names, or creates one (a create either way).
  if (!issue) return QueueClass.create;
  // A person's change on the issue: their verdict, or its acceptance where the platform agrees.
  if (person) return QueueClass.verdict;
  // An existing issue: a state change first (issueStateStep, as the plan makes it).
  const status = record.gone === true ? null : record.status;
  if (issueStateStep(status, issue, record.closedForRemoval === true) !== null) return QueueClass.state;
  // Else content and link. A create is finished by its link: an issue whose link is not written yet
  // (a drain interrupted between the two) keeps the create class it was queued in, as `status`
  // shows it; the plan's link step alone would be the last class.
  return record.link === formatExternalId(issue) ? QueueClass.other : QueueClass.create;
}
