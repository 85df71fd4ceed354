import type { IssueSnapshot } from "../github/index.js";
import { count, nowIso, setRecord, type SyncContext } from "./context.js";
import { allRepos } from "./policy.js";
import { enqueue } from "./queue.js";
import { issueRecord } from "./intents.js";
import { parseExternalId } from "./normalize.js";

/**
 * Intake from GitHub: the managed issues changed since the last cycle (conditional requests, so an
 * idle cycle costs no rate limit). An issue whose open/closed state differs from what the connector
 * last wrote was changed by a person: that becomes queued verdict work, recorded before the `since`
 * watermark moves. Issues carrying a marker the state does not know (a lost state file) are adopted,
 * so that no threat ever gets a second issue.
 */

export function reposToWatch(ctx: SyncContext): string[] {
  const repos = new Set(allRepos(ctx.policy));
  for (const record of Object.values(ctx.state.threats)) if (record.issue) repos.add(record.issue.repo);
  return [...repos].sort();
}

function adopt(ctx: SyncContext, threatId: string, issue: IssueSnapshot): void {
  const record = ctx.state.threats[threatId];
  setRecord(ctx, threatId, {
    status: record?.status ?? "unknown",
    severity: record?.severity ?? 0,
    assetId: record?.assetId ?? null,
    updatedAt: record?.updatedAt ?? "",
    position: record?.position ?? null,
    gone: record?.gone ?? false,
    ...(record?.link !== undefined ? { link: record.link } : {}),
    issue: issueRecord(issue),
  });
  count(ctx, "issues_adopted");
}

async function absorbIssue(ctx: SyncContext, issue: IssueSnapshot): Promise<void> {
  const threatId = issue.threatId;
  if (threatId === null) return;
  const record = ctx.state.threats[threatId];
  const known = record?.issue;
  if (!known) {
    // The platform's link, when it names another issue, decides which one is the threat's.
    const linked = record?.link !== undefined ? parseExternalId(record.link) : null;
    if (linked && (linked.repo !== issue.repo || linked.number !== issue.number)) {
      count(ctx, "duplicate_markers");
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
    count(ctx, "duplicate_markers");
    ctx.logger.warn(
      { threatId, mapped: `${known.repo}#${known.number}`, other: `${issue.repo}#${issue.number}` },
      "a second issue carries this threat's marker; it is left alone (see `threatbridge reconcile`)",
    );
    return;
  }
  const entry = ctx.state.queue[threatId];
  if (issue.state === known.state) {
    // A person undid their own change before the connector acted on it.
    if (entry?.person) delete entry.person;
    return;
  }
  const inFlight = Object.values(ctx.state.intents).some(
    (i) => i.kind === "issue_state" && i.threatId === threatId && i.target === issue.state,
  );
  if (inFlight) return; // the connector's own write, resolved by intent recovery
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
    known.state = issue.state;
    return;
  }
  count(ctx, "people_changes");
  enqueue(
    ctx.state,
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
}

export async function readGitHub(ctx: SyncContext): Promise<void> {
  for (const repo of reposToWatch(ctx)) {
    const since = ctx.state.github.since[repo] ?? null;
    const result = await ctx.github.listChangedIssues(repo, since);
    if (result.notModified) {
      count(ctx, "github_not_modified");
      continue;
    }
    let watermark = since;
    for (const issue of result.issues) {
      await absorbIssue(ctx, issue);
      if (watermark === null || issue.updatedAt > watermark) watermark = issue.updatedAt;
    }
    count(ctx, "github_issues_read", result.issues.length);
    // `since` is inclusive, so the newest issue is read again after a change; an inconsistent read
    // (issues edited while it paged) keeps the old watermark so that none slips past.
    if (watermark !== null && result.consistent) ctx.state.github.since[repo] = watermark;
  }
  ctx.state.github.etags = ctx.github.exportEtags();
}
