import type { Feature } from "../types.js";
import { noteBreachLabel, slaOnVersion } from "./intake.js";
import { slaClock } from "./clock.js";
import { formatSla, storedSlaCounts } from "./counts.js";

/**
 * The SLA (contract, "Workflow": SLA) as a plug-in: a due date noted on each threat version, a
 * person's removal of the breach label noted from the issue, the breach queued when its time comes.
 */
export const sla: Feature = {
  name: "sla",
  configKey: "sla",
  onThreatVersion: slaOnVersion,
  onIssueChange: noteBreachLabel,
  clock: slaClock,
  status: { counts: storedSlaCounts, line: formatSla },
};
