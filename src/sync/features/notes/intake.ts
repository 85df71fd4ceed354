import type { IssueSnapshot, RepoCommentSnapshot } from "../../../github/index.js";
import type { Threat } from "../../../platform/index.js";
import type { ThreatRecord } from "../../schema.js";
import { issueKey } from "../../records/threat-index.js";
import { noteDue } from "./plan.js";
import { analystOnVersion } from "./to-github.js";
import { analystBackfill } from "./backfill.js";
import { addPending, notesData, notesRun, sayOnce, setNotesData, takePending } from "./runtime.js";
import { findSection, noteOf, plainText, sectionHash } from "./section.js";
import { changeSlice, mergeComments, readSlice, type NoteComment, type NotesSlice } from "./slice.js";
import { compareIso } from "../../../shared/iso-time.js";
import type { FeatureContext } from "../types.js";

/**
 * What the notes take in (contract, "The conversation back": notes). People's comments come from ONE
 * listing per repository per cycle, never one read per issue; a threat whose section changes waits
 * in `pending` until that listing is done.
 */

/** A new threat version: whether reads carry its note, and after a lost state the section it holds. */
export function notesOnVersion(
  ctx: FeatureContext,
  _before: ThreatRecord | undefined,
  after: ThreatRecord,
  threat: Threat,
): ThreatRecord {
  if (!ctx.config.notes) return after;
  const path = ctx.config.fields.threat.note;
  const note = noteOf(threat, path);
  if (note === undefined) {
    sayOnce(
      ctx,
      "absent",
      {
        threat_id: threat.id,
        ...(after.issue ? { issue: `${after.issue.repo}#${after.issue.number}` } : {}),
        path,
      },
      "threat reads carry no note at fields.threat.note; no note is written (said once)",
    );
    return changeSlice(after, (s) => ({ ...s, n: 1 }));
  }
  const noted = changeSlice(after, (s) => {
    const { n: _absent, ...rest } = s;
    if (rest.w !== undefined) return rest;
    const found = findSection(note);
    return found ? { ...rest, w: sectionHash(found.text) } : rest;
  });
  if (ctx.config.notes.to_github)
    return analystOnVersion(ctx, ctx.config.notes, threat.id, noted, note, threat.updated_at);
  // Off: an issue not made yet is made without the analyst's text (one made with it keeps it).
  if (noted.issue || readSlice(noted).b === undefined) return noted;
  return changeSlice(noted, (s) => ({ ...s, b: undefined }));
}

function sameFacts(a: NotesSlice, b: NotesSlice): boolean {
  return a.r === b.r && a.m === b.m && (a.a ?? []).join("\n") === (b.a ?? []).join("\n");
}

function noteChange(ctx: FeatureContext, threatId: string): void {
  const config = ctx.config.notes;
  const record = ctx.state.threats.get(threatId);
  if (!config || !record) return;
  try {
    if (noteDue(config, ctx.config.fields.threat.note, threatId, record) !== null) addPending(ctx, threatId);
  } catch {
    // A template that fails on these facts: the plan says so when it is asked.
  }
}

export function notesOnIssue(ctx: FeatureContext, threatId: string, issue: IssueSnapshot): void {
  if (!ctx.config.notes) return;
  const record = ctx.state.threats.get(threatId);
  if (!record) return;
  const slice = readSlice(record);
  const assignees = [...issue.assignees].sort();
  const facts: NotesSlice = {
    ...slice,
    ...(issue.state === "closed" && issue.stateReason !== null ? { r: issue.stateReason } : { r: undefined }),
    a: assignees.length > 0 ? assignees : undefined,
    // An answer that does not say (the engine's fakes) keeps what was known.
    m: issue.milestone === undefined ? slice.m : (issue.milestone ?? undefined),
  };
  if (sameFacts(slice, facts)) return;
  ctx.updateThreat(threatId, (r) => changeSlice(r, () => facts));
  noteChange(ctx, threatId);
}

/** Whether a comment is a person's: bots' and the connector's own (its keys and markers) are left out. */
export function isPersonComment(comment: RepoCommentSnapshot, self: string | null): boolean {
  if (comment.author === null || comment.authorType === "Bot") return false;
  if (self !== null && comment.author.toLowerCase() === self.toLowerCase()) return false;
  return !/<!-- threatbridge:/.test(comment.body);
}

/** GitHub's `since` is inclusive and its clock not ours: the first listing looks back this far. */
const FIRST_LISTING_MARGIN_MS = 5 * 60_000;

async function selfLogin(ctx: FeatureContext): Promise<string | null> {
  const run = notesRun(ctx);
  if (run.self !== undefined) return run.self;
  try {
    run.self = await ctx.github.whoAmI();
  } catch {
    // An App installation has no user: its comments are a bot's, left out as such.
    run.self = null;
  }
  return run.self;
}

function takeComments(
  ctx: FeatureContext,
  repo: string,
  comments: RepoCommentSnapshot[],
  self: string | null,
): void {
  const config = ctx.config.notes;
  if (!config) return;
  const byThreat = new Map<string, NoteComment[]>();
  for (const c of comments) {
    if (!isPersonComment(c, self)) continue;
    const threatId = ctx.index.byIssue.get(issueKey(repo, c.issueNumber));
    if (threatId === undefined) continue;
    const text = plainText(c.body).slice(0, config.max_length);
    const list = byThreat.get(threatId) ?? [];
    list.push([c.id, c.author ?? "ghost", c.createdAt, text]);
    byThreat.set(threatId, list);
  }
  for (const [threatId, fresh] of byThreat) {
    const record = ctx.state.threats.get(threatId);
    if (!record) continue;
    const known = readSlice(record).c ?? [];
    const merged = mergeComments(known, fresh, config.comments);
    if (JSON.stringify(merged) === JSON.stringify(known)) continue;
    ctx.updateThreat(threatId, (r) => changeSlice(r, (s) => ({ ...s, c: merged })));
    noteChange(ctx, threatId);
  }
}

/** Once per cycle before the drain: the listings, then every pending threat is queued. */
export async function notesBeforeDrain(ctx: FeatureContext): Promise<void> {
  const config = ctx.config.notes;
  if (!config) return;
  const run = notesRun(ctx);
  const conversation = ctx.conversation;
  if (config.comments > 0 && conversation === undefined) {
    sayOnce(ctx, "no-conversation", {}, "this engine has no GitHub comment listing; notes show no comments");
  } else if (config.comments > 0 && conversation !== undefined) {
    const repos = new Map<string, string>();
    for (const repo of ctx.repositories())
      if (!repos.has(repo.toLowerCase())) repos.set(repo.toLowerCase(), repo);
    for (const repo of repos.values()) {
      const data = notesData(ctx);
      // Keyed by the repository's name lower-cased: GitHub's names are case-insensitive.
      const key = repo.toLowerCase();
      const since = data.since[key] ?? null;
      const startedMs = ctx.clock.now();
      try {
        const listed = await conversation.listRepoComments(repo, since);
        // Who the connector is is asked only when there are comments to sort: an idle cycle asks nothing.
        if (listed.comments.length > 0) takeComments(ctx, repo, listed.comments, await selfLogin(ctx));
        let next = since ?? new Date(startedMs - FIRST_LISTING_MARGIN_MS).toISOString();
        // The latest by instant: as text `…:05Z` sorts after `…:05.500Z` (src/shared/iso-time.ts).
        for (const c of listed.comments) if (compareIso(c.updatedAt, next) > 0) next = c.updatedAt;
        if (next !== since)
          setNotesData(ctx, { ...notesData(ctx), since: { ...notesData(ctx).since, [key]: next } });
      } catch (error) {
        ctx.logger.warn({ repo, err: error }, "people's comments could not be listed; notes there wait");
      }
    }
  }
  await analystBackfill(ctx, config);
  for (const threatId of takePending(ctx)) ctx.enqueue(threatId, { timed: true });
  run.ready = true;
}
