import type { State } from "../state/index.js";
import type { Connector } from "./wiring.js";

/**
 * Notes in the state's last cycle what the GitHub side looked like when it ended: the write
 * budget used and GitHub's rate limit as last seen, so that `status` (which makes no request) can
 * show them (issue 8). The caller persists the state.
 */
export function noteGitHubSide(state: State, connector: Pick<Connector, "github" | "rateLimitSeen">): void {
  if (!state.lastCycle) return;
  const seen = connector.rateLimitSeen();
  state.lastCycle.github = {
    writes: connector.github.stats().writes,
    usedLastHour: connector.github.budget.snapshot().usedLastHour,
    ...(seen !== null ? { rateLimit: seen } : {}),
  };
}
