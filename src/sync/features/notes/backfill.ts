import type { NotesConfig } from "../../../config/notes.js";
import { PlatformProblem } from "../../../platform/index.js";
import { noteOf } from "./section.js";
import { notesData, notesRun, setNotesData, type NotesData } from "./runtime.js";
import { changeSlice, readSlice } from "./slice.js";
import { analystSeen } from "./to-github.js";
import type { FeatureContext } from "../types.js";

/**
 * `notes.to_github` for the issues that existed when it was switched on (contract, "The analyst's
 * words on GitHub"): each threat's analyst text is compared with what its issue last showed, once.
 *
 * The text is not in the state (only the connector's section's hash is), so it is read from the
 * platform: ONE walk of the threat listing from its beginning (`GET /v1/threats`, up to 500 threats
 * a page), not one `GET /v1/threats/{id}` per issue. A text the issue does not show is queued at the
 * backfill's class (the queue's `later`, after all other work) and planned from the record, with no
 * further platform read; its comment action reads the issue's comments once when what the issue last
 * showed is unknown. Threats without analyst text cost no GitHub read.
 *
 * State `features.notes.backfill`: absent (not begun), the walk's resume cursor (begun; a crash or
 * a cycle's page limit resumes there), or "done". Switching `to_github` off forgets it, so switching
 * it on again compares every issue again. A cycle whose intake saw every threat with an issue under
 * `to_github` (a lost state or a first sync read from the beginning) needs no walk at all.
 */

/** Pages of the listing one cycle reads at most (500 threats each); the rest waits for the next cycle. */
export const BACKFILL_PAGES_PER_CYCLE = 20;

const DONE = "done";

function withBackfill(data: NotesData, backfill: NotesData["backfill"]): NotesData {
  const { backfill: _old, ...rest } = data;
  return backfill === undefined ? rest : { ...rest, backfill };
}

/** Whether a live threat with an issue was not seen under `to_github` in this process (its text unknown). */
function anyUnseen(ctx: FeatureContext, seen: ReadonlySet<string>): boolean {
  for (const threatId of ctx.index.byIssue.values()) {
    if (seen.has(threatId)) continue;
    if (ctx.state.threats.get(threatId)?.gone !== true) return true;
  }
  return false;
}

/** One listed threat: its text compared with what its issue showed; a comment due is queued at the lowest class. */
function compare(ctx: FeatureContext, config: NotesConfig, threat: { id: string; updated_at: string }): void {
  const record = ctx.state.threats.get(threat.id);
  if (!record || record.gone) return;
  // A threat with no issue and no work queued gets none now: its text is kept if it gets one later.
  if (!record.issue && ctx.state.queue[threat.id] === undefined) return;
  const note = noteOf(threat, ctx.config.fields.threat.note);
  if (note === undefined) return;
  const seen = analystSeen(config, record, note, threat.updated_at, false);
  let next = seen.record;
  // Bodies show the analyst's text only when made under `to_github`, and such an issue knows what it
  // showed (`g`); an adopted one's body was read when it was found (`s`). Otherwise the body shows
  // none, so the comment action reads only the issue's comments, never the issue.
  if (seen.due && readSlice(next).g === undefined && readSlice(next).s === undefined)
    next = changeSlice(next, (s) => ({ ...s, s: "" }));
  if (next !== record) ctx.updateThreat(threat.id, () => next);
  if (seen.due && record.issue) ctx.enqueue(threat.id, { timed: true, later: true });
}

/** Once per cycle before the drain: the backfill's next pages, or nothing once it is done (an idle cycle reads nothing). */
export async function analystBackfill(ctx: FeatureContext, config: NotesConfig): Promise<void> {
  const data = notesData(ctx);
  if (!config.to_github) {
    if (data.backfill !== undefined) setNotesData(ctx, withBackfill(data, undefined));
    return;
  }
  if (data.backfill === DONE) return;
  const run = notesRun(ctx);
  if (data.backfill === undefined) {
    // Every threat with an issue was seen under `to_github` in this process: nothing to compare.
    if (run.seen !== undefined && !anyUnseen(ctx, run.seen)) {
      finish(ctx);
      return;
    }
    setNotesData(ctx, withBackfill(data, { at: null }));
    run.seen = undefined;
    ctx.logger.info(
      {},
      "notes.to_github: the analysts' texts of existing issues are compared with what the issues show, after new work",
    );
  }
  let at = notesData(ctx).backfill;
  if (at === undefined || at === DONE) return;
  let pages = 0;
  try {
    for await (const page of ctx.platform.streamThreats(at.at)) {
      for (const item of page.items) if (item.ok) compare(ctx, config, item.value);
      at = { at: page.resumeCursor };
      setNotesData(ctx, withBackfill(notesData(ctx), at));
      // Each page's comparisons, queue entries and resume cursor are committed together.
      await ctx.persist();
      pages += 1;
      if (page.nextCursor !== null && pages >= BACKFILL_PAGES_PER_CYCLE) return;
    }
  } catch (error) {
    // A resume cursor the platform refuses: the walk begins again from the listing's start.
    if (error instanceof PlatformProblem && error.status === 400 && error.type === "request/invalid-cursor")
      setNotesData(ctx, withBackfill(notesData(ctx), { at: null }));
    ctx.logger.warn(
      { err: error },
      "notes.to_github: the threat listing failed; the comparison of existing issues resumes next cycle",
    );
    return;
  }
  finish(ctx);
}

function finish(ctx: FeatureContext): void {
  setNotesData(ctx, withBackfill(notesData(ctx), DONE));
  notesRun(ctx).seen = undefined;
}
