import { z } from "zod";
import type { SyncContext } from "../../context.js";
import { setMeta, updateThreat } from "../../records/state-updates.js";
import { changeSlice, NOTES, parseSlice, readSlice } from "./slice.js";

/**
 * The notes' per-process part and their feature-level data in the state.
 *
 * - In memory, per context: whether this cycle's comment listing is done (`ready`: notes are
 *   written only after it, in the cycle's last drain, so that one cycle writes a threat's note at
 *   most once with everything the cycle learnt), and the threats written this cycle.
 * - In the state (`features.notes`, committed with the next commit): each repository's `since=`
 *   watermark of the comment listing.
 * - The threats whose section differs but that could not be written yet (pending: queued by the
 *   next listing): in memory, and flagged on each one's slice (`p`), so that a crash loses none; the
 *   flags are read back once per process, at its first listing. Kept per threat, not as one list in
 *   the state, so that a backfill's thousands of pending threats do not make every commit carry the
 *   whole list. Whether any slice holds the flag is kept too (`features.notes.pending`, set in the
 *   commit that flags one and cleared in the one that takes them), so that a process whose state
 *   holds none reads no slice: an idle `sync`'s scan of every threat's slice was ~25 ms at 30,000.
 */

interface NotesRun {
  ready: boolean;
  pending: Set<string>;
  /** The pending flags of the stored slices were read (once per process). */
  scanned: boolean;
  written: Set<string>;
  /** The threats whose issue got the analyst's text this cycle (`notes.to_github`: at most one comment each). */
  commented: Set<string>;
  said: Set<string>;
  self?: string | null;
}

const runs = new WeakMap<SyncContext, NotesRun>();

export function notesRun(ctx: SyncContext): NotesRun {
  let run = runs.get(ctx);
  if (run === undefined) {
    const made: NotesRun = {
      ready: false,
      pending: new Set(),
      scanned: false,
      written: new Set(),
      commented: new Set(),
      said: new Set(),
    };
    run = made;
    runs.set(ctx, made);
    // A new cycle waits for its own listing before it writes.
    ctx.subscribe((event) => {
      // The connector made a threat's issue: what its body shows is what the issue last showed.
      if (event.type === "created") noteIssueMade(ctx, event.threatId);
      if (event.type !== "cycle_started") return;
      made.ready = false;
      made.written.clear();
      made.commented.clear();
    });
  }
  return run;
}

/** Said once per process (a field absent on reads, no comment listing in this engine). */
export function sayOnce(ctx: SyncContext, key: string, fields: object, message: string): void {
  const run = notesRun(ctx);
  if (run.said.has(key)) return;
  run.said.add(key);
  ctx.logger.warn(fields, message);
}

const NotesData = z.object({
  since: z.record(z.string(), z.string()).default({}),
  /**
   * Whether a threat's slice may hold the pending flag: false, none does (the slices are not
   * read). Absent in states written before it was kept: the slices are read.
   */
  pending: z.boolean().optional(),
});
export type NotesData = z.infer<typeof NotesData>;

export function notesData(ctx: SyncContext): NotesData {
  const parsed = NotesData.safeParse(ctx.state.features?.[NOTES] ?? {});
  return parsed.success ? parsed.data : { since: {} };
}

export function setNotesData(ctx: SyncContext, data: NotesData): void {
  setMeta(ctx, "features", { ...ctx.state.features, [NOTES]: data });
}

/** Notes the threat as waiting for the next listing (once), in memory and on its slice. */
export function addPending(ctx: SyncContext, threatId: string): void {
  const run = notesRun(ctx);
  if (run.pending.has(threatId)) return;
  run.pending.add(threatId);
  if (readSlice(ctx.state.threats.get(threatId)).p !== 1) {
    updateThreat(ctx, threatId, (r) => changeSlice(r, (s) => ({ ...s, p: 1 })));
    markPending(ctx);
  }
}

/**
 * Notes the threat as waiting for the next listing in memory, for a caller that sets the flag on
 * the slice of the record it is making (`p: 1`, a threat version's): the state says a slice holds it.
 */
export function addPendingFlagged(ctx: SyncContext, threatId: string): void {
  notesRun(ctx).pending.add(threatId);
  markPending(ctx);
}

function markPending(ctx: SyncContext): void {
  const data = notesData(ctx);
  if (data.pending !== true) setNotesData(ctx, { ...data, pending: true });
}

/**
 * Takes every pending threat (those flagged in the stored slices too, the first time in a process),
 * clearing the flags: the caller queues them, and the queue is durable from then on.
 */
export function takePending(ctx: SyncContext): string[] {
  const run = notesRun(ctx);
  const flagged = notesData(ctx).pending;
  if (!run.scanned) {
    run.scanned = true;
    if (flagged !== false)
      ctx.state.threats.scanSlices(NOTES, (id, text) => {
        // A slice with the flag is JSON naming it (writeSlice): the common one, a hash, is not parsed.
        if (text.includes('"p"') && parseSlice(text).p === 1) run.pending.add(id);
      });
  }
  const taken = [...run.pending];
  run.pending.clear();
  for (const id of taken) {
    const { p: _flag, ...rest } = readSlice(ctx.state.threats.get(id));
    if (_flag === 1) updateThreat(ctx, id, (r) => changeSlice(r, () => rest));
  }
  // Every flag is cleared in this commit (the queue holds the threats from then on). A state
  // written before the mark was kept gets it once, in its first cycle's commit.
  if (flagged !== false) setNotesData(ctx, { ...notesData(ctx), pending: false });
  return taken;
}

/**
 * The connector made the threat's issue: what its body shows (found when it was made, `s`) is what
 * the issue last showed. An issue adopted (a lost state) is not made: what it showed stays unknown
 * until its comments are read.
 */
export function noteIssueMade(ctx: SyncContext, threatId: string): void {
  if (ctx.config.notes?.to_github !== true) return;
  updateThreat(ctx, threatId, (r) => changeSlice(r, (s) => ({ ...s, g: s.s ?? "" })));
}
