import type { SyncContext } from "../context.js";
import { acceptanceDue } from "../transitions/acceptance.js";

/**
 * What the planner's shell needs to know of a risk acceptance (contract, "Risk acceptance") before
 * it plans: whether a step is due from the record alone (no read), and whether it is over.
 */

/**
 * Whether a step of the threat's acceptance that the record alone decides is due at `now` (its
 * comment, its warning, its end): it is planned from the record, with no read. What follows the
 * end (a reopen, a new issue) shows the threat, which is read then if not at hand.
 */
export function acceptanceWaits(ctx: SyncContext, threatId: string, now: number): boolean {
  const acceptance = ctx.state.threats.get(threatId)?.acceptance;
  const policy = ctx.policy.acceptance;
  if (acceptance === undefined || policy === undefined || acceptance.step === "expired") return false;
  return acceptanceDue(acceptance, now, policy.warnMs);
}
