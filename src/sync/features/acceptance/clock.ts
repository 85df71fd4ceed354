import type { ThreatRecord } from "../../../state/index.js";
import type { SyncContext } from "../../context.js";
import { acceptanceDue, acceptanceNextAt } from "./transitions.js";
import { acceptancePolicyOf } from "./policy.js";
import type { FeatureClock } from "../types.js";
import { heldAcceptances } from "./status.js";

/**
 * Risk acceptances' warnings and ends (contract, "Risk acceptance"), decided from the state over
 * only the threats that hold one (the engine's index), with no read of GitHub or the platform; the
 * drain plans a due step from the record. A threat already queued is left to that work.
 */
export const acceptanceClock: FeatureClock = {
  waiting: (ctx: SyncContext, nowMs: number) => notQueued(ctx, nowMs),
  nextDueAt: (record: ThreatRecord, ctx: SyncContext) => {
    const { acceptance } = record;
    const warnMs = acceptancePolicyOf(ctx.config)?.warnMs;
    if (!acceptance || warnMs === undefined || !record.issue || record.gone) return null;
    return acceptanceNextAt(acceptance, warnMs);
  },
  // What follows the end (a reopen, a new issue) shows the threat: it is read then if not at hand.
  fromRecord: false,
  /**
   * Its comment, its warning and its end are planned from the record alone (no read), and so is
   * what follows the end's PATCH, which answers with the threat.
   */
  plannedFromRecord(record, ctx, nowMs) {
    const { acceptance } = record;
    const policy = acceptancePolicyOf(ctx.config);
    if (acceptance === undefined || policy === undefined || acceptance.step === "expired") return false;
    return acceptanceDue(acceptance, nowMs, policy.warnMs);
  },
};

/**
 * The held acceptances not queued whose next step's time has come, from the index's copy of each
 * (nextDueAt then reads the record of these only: 1,000 records read and checked at each sweep
 * when none was due).
 */
function* notQueued(ctx: SyncContext, nowMs: number): Iterable<string> {
  const warnMs = acceptancePolicyOf(ctx.config)?.warnMs;
  if (warnMs === undefined) return;
  for (const [threatId, acceptance] of heldAcceptances(ctx.index))
    if (!ctx.state.queue[threatId] && acceptanceNextAt(acceptance, warnMs) <= nowMs) yield threatId;
}
