import { GitHubError, type IssueSnapshot } from "../github/index.js";
import { markerFor } from "./render/index.js";
import type { IssueRecord } from "../state/index.js";
import { isRecord } from "../shared/json.js";
import { audit } from "./audit.js";
import { checkpoint, count, persist, remember, type SyncContext } from "./context.js";
import { isFresh } from "./fresh-poll.js";
import { notePersonChange } from "./intake-github.js";
import { githubLink, LINK_SYSTEM, toThreatView } from "./normalize.js";
import { ASSET_REMOVED_COMMENT, type Action } from "./plan.js";
import { issueRecord, postComment, startIntent, underIntent } from "./intents.js";
import { resolveCreate } from "./recover.js";
import { markIssueDeleted } from "./refusals.js";
import { withRevision } from "./revision.js";
import { dropIntent, dropPending, dropPerson, putIntent, updateThreat } from "./state-updates.js";

/**
 * The writer: carries out one action. Every non-idempotent or state-changing GitHub write runs
 * under a write-ahead intent (intents.ts), so that a crash at any instant is resolved on restart
 * (recover.ts) without a duplicate issue or a mistaken verdict.
 */

/** GitHub answered and did not make the change (a limit, a refusal): nothing to find out later. */
function surelyRefused(error: unknown): boolean {
  const code = isRecord(error) ? error["code"] : undefined;
  return (
    code === "rate_limited" ||
    code === "validation" ||
    code === "not_found" ||
    code === "unauthorized" ||
    code === "budget_deadline"
  );
}

const GONE = Symbol("gone");

/**
 * A platform write for a threat that may have left the API meanwhile: a 404 `resource/not-found`
 * marks it gone (spec: a threat of a removed asset answers 404) instead of failing again and again.
 */
async function ifStillThere<T>(
  ctx: SyncContext,
  threatId: string,
  write: () => Promise<T>,
): Promise<T | typeof GONE> {
  try {
    return await write();
  } catch (error) {
    if (!(isRecord(error) && error["type"] === "resource/not-found")) throw error;
    updateThreat(ctx, threatId, (r) => ({ ...r, gone: true }));
    ctx.cache.delete(threatId);
    count(ctx, "threats_gone_on_write");
    return GONE;
  }
}

/** Labels of the connector's own vocabulary; others (people's) are kept on update. */
function isManagedLabel(ctx: SyncContext, label: string): boolean {
  const l = label.toLowerCase();
  return (
    l === ctx.policy.managedLabel.toLowerCase() ||
    l === "pending" ||
    l.startsWith("severity:") ||
    l.startsWith("module:") ||
    ctx.policy.routes.some((r) => r.labels.some((x) => x.toLowerCase() === l))
  );
}

/**
 * Brings the connector's own labels on an issue to `wanted` through the label endpoints, from the
 * labels GitHub's last answer showed: nothing is sent when they already match (the usual case, since
 * the labels change only with severity, module or route), and people's labels are never touched.
 */
async function syncLabels(ctx: SyncContext, issue: IssueSnapshot, wanted: readonly string[]): Promise<void> {
  const has = new Set(issue.labels.map((l) => l.toLowerCase()));
  const want = new Set(wanted.map((l) => l.toLowerCase()));
  const add = wanted.filter((l) => !has.has(l.toLowerCase()));
  const remove = issue.labels.filter((l) => isManagedLabel(ctx, l) && !want.has(l.toLowerCase()));
  if (add.length > 0) await ctx.github.addLabels(issue.repo, issue.number, add);
  for (const label of remove) await ctx.github.removeLabel(issue.repo, issue.number, label);
}

/** GitHub's limit on a title (characters). */
const TITLE_MAX = 256;

/**
 * What a create falls back to when GitHub refuses the full body as invalid (422): the marker and
 * the revision line are kept, so the issue stays findable and is not rewritten (issue 6, item 9).
 */
export const MINIMAL_BODY_NOTE =
  "GitHub refused the full description of this threat; the platform holds it. This issue is still managed by threatbridge.";

function minimalBody(threatId: string): string {
  return `${MINIMAL_BODY_NOTE}\n\n${markerFor(threatId)}`;
}

/** A person transferred the issue (GitHub answered from its new place): the record follows it. */
function repoint(ctx: SyncContext, threatId: string, known: IssueRecord, current: IssueSnapshot): void {
  if (known.repo === current.repo && known.number === current.number) return;
  ctx.logger.info(
    { from: `${known.repo}#${known.number}`, to: `${current.repo}#${current.number}` },
    "the issue was transferred; the connector follows it and re-points the platform's link",
  );
  updateThreat(ctx, threatId, (r) => ({
    ...r,
    issue: { ...known, repo: current.repo, number: current.number, url: current.url },
  }));
  count(ctx, "issues_transferred");
}

export async function execute(ctx: SyncContext, action: Action): Promise<void> {
  const id = action.threatId;
  const record = ctx.state.threats[id];
  const setIssueState = (state: "open" | "closed"): void =>
    updateThreat(ctx, id, (r) => (r.issue ? { ...r, issue: { ...r.issue, state } } : r));
  switch (action.kind) {
    case "verdict": {
      const threat = await ifStillThere(ctx, action.threatId, () =>
        ctx.platform.setStatus(action.threatId, action.status, action.note || undefined),
      );
      if (threat === GONE) {
        // The threat left the API (its asset was removed) since the person acted: no verdict can
        // be given; the issue stays as the person left it.
        setIssueState(action.person.event === "closed" ? "closed" : "open");
        dropPerson(ctx, id);
        await checkpoint(ctx);
        return;
      }
      count(ctx, "platform_verdicts");
      audit(ctx, "verdict", action.threatId, action.person);
      // The response's status is the recalculated effective status (spec, PATCH rule 3).
      const issueState = action.person.event === "closed" ? "closed" : "open";
      updateThreat(ctx, id, (r) => ({
        ...r,
        status: threat.status,
        updatedAt: threat.updated_at,
        ...(r.issue ? { issue: { ...r.issue, state: issueState } } : {}),
      }));
      remember(ctx, action.threatId, {
        view: toThreatView(threat, ctx.config.fields.threat),
        link: githubLink(threat),
      });
      dropPerson(ctx, id);
      await checkpoint(ctx);
      return;
    }
    case "accept": {
      setIssueState(action.state);
      dropPerson(ctx, id);
      await checkpoint(ctx);
      return;
    }
    case "adopt": {
      const issue = await ctx.github.getIssue(action.repo, action.number);
      if (!issue) {
        // The linked issue answers 404/410: a person deleted it (issue 6, item 3).
        markIssueDeleted(ctx, action.threatId, action.repo, action.number);
        await checkpoint(ctx);
        return;
      }
      updateThreat(ctx, id, (r) => ({
        ...r,
        issue: issueRecord(issue),
        link: `${issue.repo}#${issue.number}`,
      }));
      count(ctx, "issues_adopted");
      await checkpoint(ctx);
      return;
    }
    case "create": {
      await underIntent(
        ctx,
        { kind: "create", threatId: action.threatId, repo: action.repo },
        async () => {
          const send = (title: string, body: string) =>
            ctx.github.createIssue(action.repo, {
              title,
              body: withRevision(body, action.hash),
              labels: action.labels,
              assignees: action.assignees,
            });
          let issue: IssueSnapshot;
          try {
            issue = await send(action.title, action.body);
          } catch (error) {
            // A 422 would be answered again to the same request: fall back once to a minimal
            // body. Its revision is the full content's, so the planner does not rewrite it.
            if (!(error instanceof GitHubError && error.code === "validation")) throw error;
            count(ctx, "issues_created_minimal");
            issue = await send(action.title.slice(0, TITLE_MAX), minimalBody(action.threatId));
          }
          updateThreat(ctx, id, ({ deletedIssue: _recreated, ...r }) => ({
            ...r,
            issue: issueRecord(issue, action.hash),
          }));
          dropPending(ctx, id);
          count(ctx, "issues_created");
          audit(ctx, "create", action.threatId, issue);
        },
        // A lost response: look for the marker before anything is sent again.
        (intent) => resolveCreate(ctx, intent),
      );
      return;
    }
    case "update": {
      const known = record?.issue;
      // The person wins (issue 6, item 1; README, "Conflicts"): a state change is preceded by a read
      // of the issue unless the repository's change list was read since the connector's last write
      // (fresh-poll.ts), so that a person acting between two of its writes is seen before the
      // second. A content PATCH needs no read: it never sends a state, and its answer shows one.
      let repo = action.repo;
      let number = action.number;
      if (action.state !== undefined && !isFresh(ctx, action.repo)) {
        const current = await ctx.github.getIssue(action.repo, action.number);
        if (current === null) {
          throw new GitHubError("not_found", `${action.repo}#${action.number} was deleted`, { status: 410 });
        }
        if (known) repoint(ctx, id, known, current);
        if (await notePersonChange(ctx, action.threatId, current)) {
          await checkpoint(ctx);
          return; // planned again: the person's change becomes a verdict first
        }
        repo = current.repo;
        number = current.number;
      }
      const patch: Parameters<typeof ctx.github.updateIssue>[2] = {};
      if (action.state !== undefined) patch.state = action.state;
      if (action.stateReason !== undefined) patch.stateReason = action.stateReason;
      if (action.content && action.hash !== undefined) {
        // Never `labels`: a PATCH would replace the whole list, people's labels with it.
        patch.title = action.content.title;
        patch.body = withRevision(action.content.body, action.hash);
      }
      if (action.state === undefined) {
        // Content alone: it never sends a state, and setting it twice gives the same issue, so no
        // intent is needed. An answer showing a state the connector did not write is a person's.
        const issue = await ctx.github.updateIssue(repo, number, patch);
        const current = ctx.state.threats[id]?.issue;
        if (current) repoint(ctx, id, current, issue);
        if (action.content) await syncLabels(ctx, issue, action.content.labels);
        const hash = action.hash;
        if (hash !== undefined)
          updateThreat(ctx, id, (r) => (r.issue ? { ...r, issue: { ...r.issue, hash } } : r));
        audit(ctx, "update", action.threatId, issue);
        await notePersonChange(ctx, action.threatId, issue);
        count(ctx, "issues_updated");
        await checkpoint(ctx);
        return;
      }
      // A state change (and the comment saying why) runs under one intent. Unless GitHub surely
      // refused the change, a failure leaves the intent: the next cycle reads the issue (recover.ts)
      // to learn whether the change landed, so the connector's own close is never taken for a
      // person's verdict, and a comment whose state change landed is still posted.
      let intent = startIntent(ctx, {
        kind: "issue_state",
        threatId: action.threatId,
        repo,
        number,
        target: action.state,
        ...(action.comment !== undefined ? { body: action.comment } : {}),
      });
      await persist(ctx);
      let issue: Awaited<ReturnType<typeof ctx.github.updateIssue>>;
      try {
        issue = await ctx.github.updateIssue(repo, number, patch);
      } catch (error) {
        if (surelyRefused(error)) {
          dropIntent(ctx, intent.id);
          await persist(ctx);
        }
        throw error;
      }
      const current = ctx.state.threats[id]?.issue;
      if (current) repoint(ctx, id, current, issue);
      if (issue.repo !== repo || issue.number !== number) {
        intent = { ...intent, repo: issue.repo, number: issue.number };
        putIntent(ctx, intent);
      }
      // Closed for the asset's removal: a person who reopens it wins, and it is not closed (nor
      // commented on) again (issue 6, item 10). Restoring the asset clears this (plan-for.ts).
      const removal = action.comment === ASSET_REMOVED_COMMENT;
      const written = action.hash;
      updateThreat(ctx, id, (r) => ({
        ...r,
        ...(r.issue
          ? { issue: { ...r.issue, state: issue.state, ...(written !== undefined ? { hash: written } : {}) } }
          : {}),
        ...(removal ? { closedForRemoval: true } : {}),
      }));
      count(ctx, "issues_state_changed");
      audit(ctx, action.state === "closed" ? "close" : "reopen", action.threatId, issue);
      if (intent.body !== undefined) await postComment(ctx, intent);
      if (action.content) await syncLabels(ctx, issue, action.content.labels);
      dropIntent(ctx, intent.id);
      await persist(ctx);
      return;
    }
    case "link": {
      const linked = await ifStillThere(ctx, action.threatId, () =>
        ctx.platform.putExternalReference(action.threatId, LINK_SYSTEM, {
          external_id: action.externalId,
          url: action.url,
        }),
      );
      if (linked === GONE) return;
      updateThreat(ctx, id, (r) => ({ ...r, link: action.externalId }));
      const cached = ctx.cache.get(action.threatId);
      if (cached) cached.link = { externalId: action.externalId, url: action.url };
      count(ctx, "platform_links");
      audit(ctx, "link", action.threatId, { repo: action.repo, number: action.number });
      await checkpoint(ctx);
      return;
    }
  }
}
