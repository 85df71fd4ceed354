import { z } from "zod";
import { changeSlice, NOTES, parseSlice, readSlice } from "./slice.js";
import type { FeatureContext } from "../types.js";

/**
 * The notes' per-process part and their data in the state.
 *
 * - `ready`: notes are written only after this cycle's comment listing, so one cycle writes a
 *   threat's note at most once with everything it learnt.
 * - `features.notes.since`: each repository's watermark of the comment listing.
 * - Pending threats are flagged on their own slice (`p`), so a crash loses none and a backfill's
 *   thousands do not make every commit carry one list; `features.notes.pending` says whether any
 *   slice holds the flag, so a state holding none reads no slice.
 */

interface NotesRun {
  ready: boolean;
  pending: Set<string>;
  scanned: boolean;
  written: Set<string>;
  /** The threats whose issue got the analyst's text this cycle (`notes.to_github`: at most one comment each). */
  commented: Set<string>;
  /**
   * `notes.to_github` before its backfill has begun: the threats whose analyst text the intake saw in
   * this process (notes/backfill.ts needs no walk when every threat with an issue is among them).
   */
  seen?: Set<string> | undefined;
  said: Set<string>;
  self?: string | null;
}

const runs = new WeakMap<FeatureContext, NotesRun>();

export function notesRun(ctx: FeatureContext): NotesRun {
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
    if (ctx.config.notes?.to_github === true && notesData(ctx).backfill === undefined) made.seen = new Set();
    run = made;
    runs.set(ctx, made);
    // A new cycle waits for its own listing before it writes.
    ctx.subscribe((event) => {
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
export function sayOnce(ctx: FeatureContext, key: string, fields: object, message: string): void {
  const run = notesRun(ctx);
  if (run.said.has(key)) return;
  run.said.add(key);
  ctx.logger.warn(fields, message);
}

const NotesData = z.object({
  since: z.record(z.string(), z.string()).default({}),
  /** false: no slice holds the pending flag (none is read); absent (an older state): they are read. */
  pending: z.boolean().optional(),
  /** `notes.to_github`'s backfill (notes/backfill.ts): absent (not begun), its resume cursor, or done. */
  backfill: z.union([z.literal("done"), z.object({ at: z.string().nullable() })]).optional(),
});
export type NotesData = z.infer<typeof NotesData>;

export function notesData(ctx: FeatureContext): NotesData {
  const parsed = NotesData.safeParse(ctx.state.features?.[NOTES] ?? {});
  return parsed.success ? parsed.data : { since: {} };
}

export function setNotesData(ctx: FeatureContext, data: NotesData): void {
  ctx.setData(NOTES, data);
}

export function addPending(ctx: FeatureContext, threatId: string): void {
  const run = notesRun(ctx);
  if (run.pending.has(threatId)) return;
  run.pending.add(threatId);
  if (readSlice(ctx.state.threats.get(threatId)).p !== 1) {
    ctx.updateThreat(threatId, (r) => changeSlice(r, (s) => ({ ...s, p: 1 })));
    markPending(ctx);
  }
}

/** As addPending, for a caller that sets `p: 1` on the record it is making. */
export function addPendingFlagged(ctx: FeatureContext, threatId: string): void {
  notesRun(ctx).pending.add(threatId);
  markPending(ctx);
}

function markPending(ctx: FeatureContext): void {
  const data = notesData(ctx);
  if (data.pending !== true) setNotesData(ctx, { ...data, pending: true });
}

/**
 * Takes every pending threat (those flagged in the stored slices too, the first time in a process),
 * clearing the flags: the caller queues them, and the queue is durable from then on.
 */
export function takePending(ctx: FeatureContext): string[] {
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
    if (_flag === 1) ctx.updateThreat(id, (r) => changeSlice(r, () => rest));
  }
  // Every flag is cleared in this commit: the durable queue holds the threats from then on.
  if (flagged !== false) setNotesData(ctx, { ...notesData(ctx), pending: false });
  return taken;
}

/** A made issue last showed what its body shows; an adopted one stays unknown until its comments are read. */
export function noteIssueMade(ctx: FeatureContext, threatId: string): void {
  if (ctx.config.notes?.to_github !== true) return;
  ctx.updateThreat(threatId, (r) => changeSlice(r, (s) => ({ ...s, g: s.s ?? "" })));
}
