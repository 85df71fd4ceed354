import type { IssueSnapshot, LastStateChange } from "../../github/index.js";
import { issueChanged, issueFound, markerNumberOf } from "../features/registry.js";
import { hasChanges, nowIso, persist, type SyncContext } from "../context.js";
import { issueKey } from "../records/threat-index.js";
import { isGroupIssue } from "../../shared/index.js";
import { compareIso } from "../../shared/iso-time.js";
import { noteSingleIssueSeen } from "../groups/single-members.js";
import type { ThreatRecord } from "../schema.js";
import { putQueue, putThreat, setMeta } from "../records/state-updates.js";
import { allRepos } from "../plan/policy.js";
import { enqueue } from "../records/queue.js";
import { notePolled } from "./fresh-poll.js";
import { issueRecord } from "../transitions/issue-record.js";
import { applyIssueSeen, personChange, personChangeSeen } from "../transitions/issue-seen.js";

/**
 * Intake from GitHub: the issues changed since the last cycle (conditional requests: an idle cycle
 * costs no rate limit). A state the connector did not write is a person's change, queued before the
 * watermark moves; an unknown issue carrying a marker is adopted, so no threat gets a second issue.
 */

export function reposToWatch(ctx: SyncContext): string[] {
  const repos = new Set(allRepos(ctx.policy));
  for (const repo of ctx.index.repositories()) repos.add(repo);
  return [...repos].sort();
}

function adopt(ctx: SyncContext, threatId: string, record: ThreatRecord, issue: IssueSnapshot): void {
  putThreat(ctx, threatId, issueFound(ctx.config, record, issue), record);
  ctx.emit({ type: "adopted", threatId, issue: { repo: issue.repo, number: issue.number } });
}

/** Threat ids by `owner/name#N` of the issues the state maps (for issues a person stripped of their marker). */
/** Which threat maps an issue (for one a person stripped of its marker): built on first use. */
export type MappedLookup = (repo: string, number: number) => string | undefined;

export function mappedIssues(ctx: SyncContext): ReadonlyMap<string, string> {
  return ctx.index.byIssue;
}

export interface SeenIssue {
  threatId: string;
  issue: IssueSnapshot;
}

const ADOPTED = "adopted";

/** Adopts or warns about a listed issue; answers it when it may show a person's change, `ADOPTED`, or null. */
function absorbIssue(
  ctx: SyncContext,
  issue: IssueSnapshot,
  mapped: MappedLookup,
): SeenIssue | typeof ADOPTED | null {
  // A group's issue is its group's, never a threat's; a person's change to it is recorded there.
  if (issue.threatId === null && isGroupIssue(issue.body)) {
    noteSingleIssueSeen(ctx, issue);
    return null;
  }
  // Any issue of the repository is listed: keep those that carry a marker or that the state maps.
  const threatId = issue.threatId ?? mapped(issue.repo, issue.number) ?? null;
  if (threatId === null) return null;
  const record = ctx.state.threats.get(threatId);
  const result = applyIssueSeen(record, issue, issueRecord(issue), markerNumberOf(ctx.config, record));
  if (result.kind === "ignored") return null;
  issueChanged(ctx, threatId, issue);
  if (result.kind === "adopt") {
    adopt(ctx, threatId, result.record, issue);
    return ADOPTED;
  }
  if (result.kind === "duplicate") {
    const other = `${issue.repo}#${issue.number}`;
    ctx.emit({ type: "duplicate_marker", threatId, issue: { repo: issue.repo, number: issue.number } });
    if (result.by === "link") {
      ctx.logger.warn(
        { threat_id: threatId, issue: other, linked: result.mapped },
        "an issue carries the marker of a threat the platform links elsewhere; it is left alone",
      );
    } else {
      ctx.logger.warn(
        { threat_id: threatId, issue: other, mapped: result.mapped },
        "a second issue carries this threat's marker; it is left alone (see `threatbridge reconcile`)",
      );
    }
    return null;
  }
  return { threatId, issue };
}

/** Whether an issue shows a state the connector did not write (a person's undone change is forgotten). */
function isPersonCandidate(ctx: SyncContext, threatId: string, issue: IssueSnapshot): boolean {
  // The connector's own writes in flight, resolved by intent recovery.
  const writing = Object.values(ctx.state.intents).flatMap((i) =>
    i.kind === "issue_state" && i.threatId === threatId && i.target !== undefined ? [i.target] : [],
  );
  const seen = personChangeSeen(ctx.state.threats.get(threatId), ctx.state.queue[threatId], issue, writing);
  if (seen.kind === "undone") putQueue(ctx, threatId, seen.entry);
  return seen.kind === "candidate";
}

/** Queues a person's change as verdict work; `who` only names the person in the verdict's note. */
function enqueuePersonChange(
  ctx: SyncContext,
  threatId: string,
  issue: IssueSnapshot,
  who: LastStateChange | null,
): boolean {
  const record = ctx.state.threats.get(threatId);
  if (!record?.issue) return false;
  const change = personChange({ ...record, issue: record.issue }, issue, who, nowIso(ctx));
  if (change.kind === "by_app") {
    putThreat(ctx, threatId, change.record, record);
    return false;
  }
  ctx.emit({
    type: "person_changed",
    threatId,
    issue: { repo: issue.repo, number: issue.number },
    state: issue.state,
  });
  // Verdict work: its order (people's verdicts first) is derived from the entry (queue.ts).
  enqueue(ctx, threatId, { person: change.person }, nowIso(ctx));
  return true;
}

/**
 * Queues people's changes as verdict work (README, "Conflicts"). Who made them names the person in
 * the note only, so a GitHub that cannot say never stops the verdict. Answers how many.
 */
async function notePersonChanges(
  ctx: SyncContext,
  seen: readonly SeenIssue[],
  notBefore: string | null,
): Promise<number> {
  const changes = seen.filter((s) => isPersonCandidate(ctx, s.threatId, s.issue));
  if (changes.length === 0) return 0;
  const who = await ctx.github
    .lastStateChanges(
      changes.map((c) => c.issue),
      notBefore,
    )
    .catch((error: unknown) => {
      ctx.logger.warn({ err: error }, "could not read who changed the issues");
      return [];
    });
  let people = 0;
  for (const [i, c] of changes.entries()) {
    if (enqueuePersonChange(ctx, c.threatId, c.issue, who[i] ?? null)) people++;
  }
  return people;
}

/** An issue GitHub answered in a state the connector did not write is a person's change; answers whether. */
export async function notePersonChange(
  ctx: SyncContext,
  threatId: string,
  issue: IssueSnapshot,
): Promise<boolean> {
  return (await notePersonChanges(ctx, [{ threatId, issue }], null)) > 0;
}

/** Reads one repository's change list (conditional, from its watermark) and absorbs what changed. */
async function pollRepo(ctx: SyncContext, repo: string, mapped: MappedLookup): Promise<void> {
  const since = ctx.state.github.since[repo] ?? null;
  const result = await ctx.github.listChangedIssues(repo, since);
  notePolled(ctx, repo);
  if (result.notModified) {
    ctx.emit({ type: "github_not_modified", repo });
    return;
  }
  let watermark = since;
  const seen: SeenIssue[] = [];
  for (const issue of result.issues) {
    const absorbed = absorbIssue(ctx, issue, mapped);
    if (typeof absorbed === "object" && absorbed !== null) seen.push(absorbed);
    if (watermark === null || compareIso(issue.updatedAt, watermark) > 0) watermark = issue.updatedAt;
  }
  await notePersonChanges(ctx, seen, since);
  ctx.emit({ type: "github_issues_read", repo, issues: result.issues.length });
  // `since` is inclusive; an inconsistent read keeps the old watermark, so none slips past.
  if (watermark !== null && result.consistent && watermark !== since) {
    setMeta(ctx, "githubSince", { ...ctx.state.github.since, [repo]: watermark });
  }
}

/** Which threat maps an issue; the lookup by issue is built only when first asked (threat-index.ts). */
function mappedLookup(ctx: SyncContext): MappedLookup {
  return (repo, number) => mappedIssues(ctx).get(issueKey(repo, number));
}

/**
 * One issue GitHub said changed (a webhook), read and absorbed as a poll would, without moving the
 * poll's watermark (a lost delivery slips nothing); committed at once, since a delivery comes once.
 */
export async function absorbIssueNow(ctx: SyncContext, repo: string, number: number): Promise<boolean> {
  const issue = await ctx.github.getIssue(repo, number);
  // Deleted or out of reach: the engine learns of it at its next write there.
  if (issue === null) return false;
  const absorbed = absorbIssue(ctx, issue, mappedLookup(ctx));
  const people =
    typeof absorbed === "object" && absorbed !== null ? await notePersonChanges(ctx, [absorbed], null) : 0;
  if (hasChanges(ctx)) await persist(ctx);
  return people > 0 || absorbed === ADOPTED;
}

export async function readGitHub(ctx: SyncContext): Promise<void> {
  const mapped = mappedLookup(ctx);
  for (const repo of reposToWatch(ctx)) await pollRepo(ctx, repo, mapped);
  keepValidators(ctx);
}

/** The listings' changed ETags into the state, so the next process's unchanged listing is a free 304. */
export function keepValidators(ctx: SyncContext): void {
  const etags = ctx.github.exportEtags();
  if (JSON.stringify(etags) !== JSON.stringify(ctx.state.github.etags)) setMeta(ctx, "etags", etags);
}
