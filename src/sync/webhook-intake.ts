import { persist, type SyncContext } from "./context.js";
import { absorbIssue, mappedIssues, notePersonChange, reposToWatch } from "./intake-github.js";
import { issueKey } from "./threat-index.js";

/**
 * Intake of one issue a GitHub webhook named (contract, "GitHub webhooks"): the same absorption as
 * a poll's (adopt, a person's change → queued verdict work, the same conflict rules), for one
 * issue read now. The poll watermark does not move: polling stays the source of truth, and a close
 * both a webhook and the next poll see is one verdict, because the record remembers it once.
 */

/** The watched repository as the connector spells it, or null when it does not watch `repo`. */
function watchedRepo(ctx: SyncContext, repo: string): string | null {
  const wanted = repo.toLowerCase();
  return reposToWatch(ctx).find((r) => r.toLowerCase() === wanted) ?? null;
}

/**
 * Whether a delivery names an issue the connector manages: in a repository it watches, and
 * carrying a threat's marker (`markerThreatId`, read from the delivery's body) or mapped by the state.
 */
export function managesIssue(
  ctx: SyncContext,
  repo: string,
  number: number,
  markerThreatId: string | null,
): boolean {
  const watched = watchedRepo(ctx, repo);
  if (watched === null) return false;
  return markerThreatId !== null || mappedIssues(ctx).has(issueKey(watched, number));
}

/**
 * Reads one issue from GitHub and absorbs it as a poll would, then commits what changed. Answers
 * whether it showed a person's change (now queued as verdict work for the next drain). Must run
 * where cycles and drains run (the daemon's single loop), never beside them.
 */
export async function absorbIssueNow(ctx: SyncContext, repo: string, number: number): Promise<boolean> {
  const watched = watchedRepo(ctx, repo);
  if (watched === null) return false;
  const issue = await ctx.github.getIssue(watched, number);
  if (issue === null) return false;
  const mapped = (r: string, n: number): string | undefined => mappedIssues(ctx).get(issueKey(r, n));
  const seen = absorbIssue(ctx, issue, mapped);
  const person = seen !== null && (await notePersonChange(ctx, seen.threatId, seen.issue));
  await persist(ctx);
  return person;
}
