import type { ThreatRecord } from "../../schema.js";
import { acceptanceDue, acceptanceNextAt } from "./transitions.js";
import { acceptancePolicyOf } from "./policy.js";
import type { FeatureClock, FeatureContext } from "../types.js";
import { heldAcceptances } from "./status.js";
import { acceptanceOf } from "./slice.js";

/** Risk acceptances' warnings and ends, from the index of held ones only, with no read of either side. */
export const acceptanceClock: FeatureClock = {
  waiting: (ctx: FeatureContext, nowMs: number) => notQueued(ctx, nowMs),
  nextDueAt: (record: ThreatRecord, ctx: FeatureContext) => {
    const acceptance = acceptanceOf(record);
    const warnMs = acceptancePolicyOf(ctx.config)?.warnMs;
    if (!acceptance || warnMs === undefined || !record.issue || record.gone) return null;
    return acceptanceNextAt(acceptance, warnMs);
  },
  // What follows the end (a reopen, a new issue) shows the threat: it is read then if not at hand.
  fromRecord: false,
  /** Its comment, warning and end are planned from the record alone, and so is what follows the end. */
  plannedFromRecord(record, ctx, nowMs) {
    const acceptance = acceptanceOf(record);
    const policy = acceptancePolicyOf(ctx.config);
    if (acceptance === undefined || policy === undefined || acceptance.step === "expired") return false;
    return acceptanceDue(acceptance, nowMs, policy.warnMs);
  },
};

/** The held acceptances not queued whose next step is due, from the index's copy of each. */
function* notQueued(ctx: FeatureContext, nowMs: number): Iterable<string> {
  const warnMs = acceptancePolicyOf(ctx.config)?.warnMs;
  if (warnMs === undefined) return;
  for (const [threatId, acceptance] of heldAcceptances(ctx.index))
    if (!ctx.state.queue[threatId] && acceptanceNextAt(acceptance, warnMs) <= nowMs) yield threatId;
}
