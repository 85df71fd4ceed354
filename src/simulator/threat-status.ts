import type { ThreatStatus } from "./records.js";

import { isSettableStatus, SETTABLE_STATUSES, type SettableStatus } from "../shared/threat-status.js";

export { SETTABLE_STATUSES };
export type Verdict = SettableStatus;

/** The modules the simulator's platform re-tests on its own (a choice the spec leaves open). */
const AUTO_VERIFIED_MODULES: ReadonlySet<string> = new Set(["vulnerability", "web", "dns"]);

export function isAutoVerified(module: string): boolean {
  return AUTO_VERIFIED_MODULES.has(module);
}

export const isVerdict: (value: string) => value is Verdict = isSettableStatus;

/** The effective status after a verdict (spec, status table rows 1–4). */
export function statusAfterVerdict(module: string, verdict: Verdict): ThreatStatus {
  return verdict === "solved" && isAutoVerified(module) ? "pending" : verdict;
}

export type ScanOutcome = "solved" | "unsolved" | "random";

/** The next scan (spec, status table rows 5–7): `pending` becomes `unsolved` or `solved`; others stay. */
export function statusAfterScan(
  status: ThreatStatus,
  outcome: ScanOutcome,
  roll: () => number,
): ThreatStatus {
  if (status !== "pending") return status;
  if (outcome === "random") return roll() < 0.5 ? "solved" : "unsolved";
  return outcome;
}
