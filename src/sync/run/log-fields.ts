import type { SyncContext } from "../context.js";

/** The keys that name a threat in a log line (contract, "Logs": `threat_id`, and `issue` as `owner/name#N`). */
export function threatLogFields(ctx: SyncContext, threatId: string): { threat_id: string; issue?: string } {
  const issue = ctx.state.threats.get(threatId)?.issue;
  return issue ? { threat_id: threatId, issue: `${issue.repo}#${issue.number}` } : { threat_id: threatId };
}
