import type { ThreatRecord } from "../../schema.js";
import { acceptanceDue, acceptanceNextAt } from "./transitions.js";
import { acceptancePolicyOf } from "./policy.js";
import type { FeatureClock, FeatureContext } from "../types.js";
import { heldAcceptances } from "./status.js";
import { ACCEPTANCE, ACCEPTANCE_TIME, acceptanceOf, acceptanceOfSlice, type Acceptance } from "./slice.js";

/** Risk acceptances' warnings and ends, from the stored ends and steps only, with no read of either side. */
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

/**
 * The steps whose next step is due at once, whatever the end (transitions.ts `acceptanceNextAt`):
 * the comment naming the end follows `accepted`, the reopen follows `expired`.
 */
const DUE_AT_ONCE = { path: "held.step", values: ["accepted", "expired"] } as const;

/** The held acceptances not queued whose next step is due. */
function* notQueued(ctx: FeatureContext, nowMs: number): Iterable<string> {
  const warnMs = acceptancePolicyOf(ctx.config)?.warnMs;
  if (warnMs === undefined) return;
  for (const [threatId, acceptance] of mayBeDue(ctx, nowMs, warnMs))
    if (!ctx.state.queue[threatId] && acceptanceNextAt(acceptance, warnMs) <= nowMs) yield threatId;
}

/**
 * The held acceptances whose next step may be due by `nowMs`, by threat id. Over a writable store
 * (`lookups`), by the index of the stored ends (ACCEPTANCE_TIME): a warning is due from the end
 * less `warnMs`, so only the ends up to `nowMs + warnMs` are read, with the steps due at once
 * (read in SQL from the acceptance's rows alone); an idle cycle builds no acceptance and reads no
 * threat. Else from the index's copy of every held acceptance (a plain state, a dry run's changes).
 */
function mayBeDue(ctx: FeatureContext, nowMs: number, warnMs: number): Iterable<[string, Acceptance]> {
  const threats = ctx.state.threats;
  if (!threats.lookups) return heldAcceptances(ctx.index);
  const found: [string, Acceptance][] = [];
  // A warning after the end (a negative `warnMs`) still waits on the end itself.
  threats.slicesDueBy(
    ACCEPTANCE,
    ACCEPTANCE_TIME,
    nowMs + Math.max(warnMs, 0),
    DUE_AT_ONCE,
    (id, _due, slice) => {
      const acceptance = acceptanceOfSlice(slice);
      if (acceptance) found.push([id, acceptance]);
    },
  );
  return found;
}
