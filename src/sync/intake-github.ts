import type { IssueSnapshot } from "../github/index.js";
import { nowIso, type SyncContext } from "./context.js";
import { dropPerson, putThreat, setMeta, updateThreat } from "./state-updates.js";
import { allRepos } from "./policy.js";
import { enqueue } from "./queue.js";
import { notePolled } from "./fresh-poll.js";
import { issueRecord } from "./intents.js";
import { parseExternalId } from "./normalize.js";

/**
 * Intake from GitHub: the repositories' issues changed since the last cycle (conditional requests, so an
 * idle cycle costs no rate limit). An issue whose open/closed state differs from what the connector
 * last wrote was changed by a person: that becomes queued verdict work, recorded before the `since`
 * watermark moves. Issues carrying a marker the state does not know (a lost state file) are adopted,
 * so that no threat ever gets a second issue.
 */

export function reposToWatch(ctx: SyncContext): string[] {
  const repos = new Set(allRepos(ctx.policy));
  for (const repo of ctx.index.repositories()) repos.add(repo);
  return [...repos].sort();
}

function adopt(ctx: SyncContext, threatId: string, issue: IssueSnapshot): void {
  const record = ctx.state.threats.get(threatId);
  putThreat(ctx, threatId, {
    status: record?.status ?? "unknown",
    severity: record?.severity ?? 0,
    assetId: record?.assetId ?? null,
    updatedAt: record?.updatedAt ?? "",
    ...(record?.gone ? { gone: true } : {}),
    ...(record?.link !== undefined ? { link: record.link } : {}),
    issue: issueRecord(issue),
  });
  ctx.emit({ type: "adopted", threatId, issue: { repo: issue.repo, number: issue.number } });
}

/** Threat ids by `owner/name#N` of the issues the state maps (for issues a person stripped of their marker). */
export function mappedIssues(ctx: SyncContext): ReadonlyMap<string, string> {
  return ctx.index.byIssue;
}

async function absorbIssue(
  ctx: SyncContext,
  issue: IssueSnapshot,
  mapped: ReadonlyMap<string, string>,
): Promise<void> {
  // Any issue of the repository is listed: keep those that carry a marker or that the state maps.
  const threatId = issue.threatId ?? mapped.get(`${issue.repo.toLowerCase()}#${issue.number}`) ?? null;
  if (threatId === null) return;
  const record = ctx.state.threats.get(threatId);
  const known = record?.issue;
  if (!known) {
    // A person deleted the issue this threat had; a copy carrying its marker is not adopted.
    if (record?.deletedIssue) return;
    // The platform's link, when it names another issue, decides which one is the threat's.
    const linked = record?.link !== undefined ? parseExternalId(record.link) : null;
    if (linked && (linked.repo !== issue.repo || linked.number !== issue.number)) {
      ctx.emit({ type: "duplicate_marker", threatId, issue: { repo: issue.repo, number: issue.number } });
      ctx.logger.warn(
        { threatId, linked: record?.link, other: `${issue.repo}#${issue.number}` },
        "an issue carries the marker of a threat the platform links elsewhere; it is left alone",
      );
      return;
    }
    adopt(ctx, threatId, issue);
    return;
  }
  if (known.repo !== issue.repo || known.number !== issue.number) {
    ctx.emit({ type: "duplicate_marker", threatId, issue: { repo: issue.repo, number: issue.number } });
    ctx.logger.warn(
      { threatId, mapped: `${known.repo}#${known.number}`, other: `${issue.repo}#${issue.number}` },
      "a second issue carries this threat's marker; it is left alone (see `threatbridge reconcile`)",
    );
    return;
  }
  await notePersonChange(ctx, threatId, issue);
}

/**
 * An issue showing a state the connector did not write is a person's change: it becomes queued
 * verdict work, whether it was polled or seen in GitHub's answer to one of the connector's own
 * writes (issue 6, item 1; README, "Conflicts": the person wins). Answers whether it was one.
 */
export async function notePersonChange(
  ctx: SyncContext,
  threatId: string,
  issue: IssueSnapshot,
): Promise<boolean> {
  const record = ctx.state.threats.get(threatId);
  const known = record?.issue;
  if (!record || !known) return false;
  const entry = ctx.state.queue[threatId];
  if (issue.state === known.state) {
    // A person undid their own change before the connector acted on it.
    if (entry?.person) dropPerson(ctx, threatId);
    return false;
  }
  const inFlight = Object.values(ctx.state.intents).some(
    (i) => i.kind === "issue_state" && i.threatId === threatId && i.target === issue.state,
  );
  if (inFlight) return false; // the connector's own write, resolved by intent recovery
  // Who did it only names the person in the verdict's note: a GitHub that cannot say (no events
  // endpoint, no /user) must not stop the verdict itself.
  const who = await ctx.github.lastStateChange(issue.repo, issue.number).catch((error: unknown) => {
    ctx.logger.warn(
      { repo: issue.repo, number: issue.number, err: String(error) },
      "could not read who changed the issue",
    );
    return null;
  });
  if (who?.bySelf && who.viaApp) {
    // Our GitHub App did it (a write whose outcome was not recorded): not a person's verdict.
    updateThreat(ctx, threatId, (r) => ({ ...r, issue: { ...known, state: issue.state } }));
    return false;
  }
  ctx.emit({
    type: "person_changed",
    threatId,
    issue: { repo: issue.repo, number: issue.number },
    state: issue.state,
  });
  enqueue(
    ctx,
    threatId,
    {
      priority: 0,
      severity: record.severity,
      person: {
        event: issue.state === "closed" ? "closed" : "reopened",
        reason: issue.state === "closed" ? issue.stateReason : null,
        login: who?.login ?? "unknown",
        repo: issue.repo,
        number: issue.number,
        url: issue.url,
        seenAt: nowIso(ctx),
      },
    },
    nowIso(ctx),
  );
  return true;
}

/** Reads one repository's change list (conditional, from its watermark) and absorbs what changed. */
export async function pollRepo(
  ctx: SyncContext,
  repo: string,
  mapped: ReadonlyMap<string, string>,
): Promise<void> {
  const since = ctx.state.github.since[repo] ?? null;
  const result = await ctx.github.listChangedIssues(repo, since);
  notePolled(ctx, repo);
  if (result.notModified) {
    ctx.emit({ type: "github_not_modified", repo });
    return;
  }
  let watermark = since;
  for (const issue of result.issues) {
    await absorbIssue(ctx, issue, mapped);
    if (watermark === null || issue.updatedAt > watermark) watermark = issue.updatedAt;
  }
  ctx.emit({ type: "github_issues_read", repo, issues: result.issues.length });
  // `since` is inclusive, so the newest issue is read again after a change; an inconsistent read
  // (issues edited while it paged) keeps the old watermark so that none slips past.
  if (watermark !== null && result.consistent && watermark !== since) {
    setMeta(ctx, "githubSince", { ...ctx.state.github.since, [repo]: watermark });
  }
}

export async function readGitHub(ctx: SyncContext): Promise<void> {
  const mapped = mappedIssues(ctx);
  for (const repo of reposToWatch(ctx)) await pollRepo(ctx, repo, mapped);
  const etags = ctx.github.exportEtags();
  // Unchanged ETags are not written again: an idle cycle commits nothing.
  if (JSON.stringify(etags) !== JSON.stringify(ctx.state.github.etags)) setMeta(ctx, "etags", etags);
}
