import { setMeta, type SyncContext } from "../sync/index.js";
import type { Connector } from "./wiring.js";

/**
 * Notes in the state's last cycle what the GitHub side looked like when it ended: the write
 * budget used and GitHub's rate limit as last seen, so that `status` (which makes no request) can
 * show them. The caller persists the state.
 */
export function noteGitHubSide(
  ctx: SyncContext,
  connector: Pick<Connector, "github" | "rateLimitSeen">,
  startedAt?: string,
): void {
  const last = ctx.state.lastCycle;
  // Only on the cycle's own record: an idle cycle kept the last one and writes nothing.
  if (!last || (startedAt !== undefined && last.startedAt !== startedAt)) return;
  const seen = connector.rateLimitSeen();
  const budget = connector.github.budget.snapshot();
  setMeta(ctx, "lastCycle", {
    ...last,
    github: {
      writes: connector.github.stats().writes,
      usedLastHour: budget.usedLastHour,
      recentWrites: budget.recent,
      ...(budget.pausedUntil !== null ? { pausedUntil: new Date(budget.pausedUntil).toISOString() } : {}),
      ...(seen !== null ? { rateLimit: seen } : {}),
    },
  });
}
