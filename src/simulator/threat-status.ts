import type { ThreatStatus } from "./records.js";

import { isSettableStatus, SETTABLE_STATUSES, type SettableStatus } from "../shared/threat-status.js";

export { SETTABLE_STATUSES };
export type Verdict = SettableStatus;

/**
 * The spec leaves open which threats the platform verifies automatically. The simulator's choice:
 * findings its scanners re-test on their own (modules `vulnerability`, `web`, `dns`). Others
 * (`lcm`, `leaked_credentials`, `cloud`, …) take a `solved` verdict as is.
 */
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

/**
 * The platform's next scan (spec, status table rows 5–7): `pending` becomes `unsolved` (still
 * detected) or `solved` (gone); every other status, `false_positive` and `accepted` included,
 * stays as it is.
 */
export function statusAfterScan(
  status: ThreatStatus,
  outcome: ScanOutcome,
  roll: () => number,
): ThreatStatus {
  if (status !== "pending") return status;
  if (outcome === "random") return roll() < 0.5 ? "solved" : "unsolved";
  return outcome;
}
