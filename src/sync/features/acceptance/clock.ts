import type { ThreatRecord } from "../../../state/index.js";
import type { SyncContext } from "../../context.js";
import { acceptanceNextAt } from "../../transitions/acceptance.js";
import type { FeatureClock } from "../types.js";

/**
 * Risk acceptances' warnings and ends (contract, "Risk acceptance"), decided from the state over
 * only the threats that hold one (the engine's index), with no read of GitHub or the platform; the
 * drain plans a due step from the record. A threat already queued is left to that work.
 */
export const acceptanceClock: FeatureClock = {
  waiting: (ctx: SyncContext) => notQueued(ctx),
  nextDueAt: (record: ThreatRecord, ctx: SyncContext) => {
    const { acceptance } = record;
    const warnMs = ctx.policy.acceptance?.warnMs;
    if (!acceptance || warnMs === undefined || !record.issue || record.gone) return null;
    return acceptanceNextAt(acceptance, warnMs);
  },
  // The step's plan reads the threat (its status may have ended the acceptance).
  fromRecord: false,
};

function* notQueued(ctx: SyncContext): Iterable<string> {
  for (const threatId of ctx.index.acceptances.keys()) if (!ctx.state.queue[threatId]) yield threatId;
}
