import type { Feature } from "../types.js";
import { acceptanceClock } from "./clock.js";

/**
 * Risk acceptance (contract, "Risk acceptance") as a plug-in, so far by its clock only: the
 * warnings and ends the queue wakes. Its planning, transitions and status lines are still the
 * core's (plan/plan-acceptance.ts, transitions/acceptance.ts, acceptance-status.ts).
 */
export const acceptance: Feature = {
  name: "acceptance",
  configKey: "acceptance",
  clock: acceptanceClock,
};
