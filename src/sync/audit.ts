import type { SyncContext } from "./context.js";

/**
 * The audit line (contract, "Logs"): every write the connector makes to either side is logged at
 * `info` as one line with `action`, `threat_id` and `issue` (`owner/name#N`) where an issue is
 * concerned, so that an operator can answer "what did it do to this threat, and when" from the
 * logs alone. Emitted by the writer, after the write succeeded.
 */
export type AuditAction = "create" | "update" | "close" | "reopen" | "comment" | "link" | "verdict";

export function audit(
  ctx: SyncContext,
  action: AuditAction,
  threatId: string,
  issue?: { repo: string; number: number },
): void {
  ctx.logger.info(
    {
      audit: true,
      action,
      threat_id: threatId,
      ...(issue ? { issue: `${issue.repo}#${issue.number}` } : {}),
    },
    `${action} ${issue ? `${issue.repo}#${issue.number}` : "threat"}`,
  );
}
