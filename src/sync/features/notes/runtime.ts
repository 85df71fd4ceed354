import { z } from "zod";
import type { SyncContext } from "../../context.js";
import { setMeta } from "../../records/state-updates.js";
import { NOTES } from "./slice.js";

/**
 * The notes' per-process part and their feature-level data in the state.
 *
 * - In memory, per context: whether this cycle's comment listing is done (`ready`: notes are
 *   written only after it, in the cycle's last drain, so that one cycle writes a threat's note at
 *   most once with everything the cycle learnt), and the threats written this cycle.
 * - In the state (`features.notes`, committed with the next commit): each repository's `since=`
 *   watermark of the comment listing, and the threats whose section differs but that could not be
 *   written yet (`pending`: queued by the next listing, so a crash loses none).
 */

interface NotesRun {
  ready: boolean;
  written: Set<string>;
  said: Set<string>;
  self?: string | null;
}

const runs = new WeakMap<SyncContext, NotesRun>();

export function notesRun(ctx: SyncContext): NotesRun {
  let run = runs.get(ctx);
  if (run === undefined) {
    const made: NotesRun = { ready: false, written: new Set(), said: new Set() };
    run = made;
    runs.set(ctx, made);
    // A new cycle waits for its own listing before it writes.
    ctx.subscribe((event) => {
      if (event.type !== "cycle_started") return;
      made.ready = false;
      made.written.clear();
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
  pending: z.array(z.string()).default([]),
});
export type NotesData = z.infer<typeof NotesData>;

export function notesData(ctx: SyncContext): NotesData {
  const parsed = NotesData.safeParse(ctx.state.features?.[NOTES] ?? {});
  return parsed.success ? parsed.data : { since: {}, pending: [] };
}

export function setNotesData(ctx: SyncContext, data: NotesData): void {
  setMeta(ctx, "features", { ...ctx.state.features, [NOTES]: data });
}

/** Notes the threat as waiting for the next listing (once). */
export function addPending(ctx: SyncContext, threatId: string): void {
  const data = notesData(ctx);
  if (data.pending.includes(threatId)) return;
  setNotesData(ctx, { ...data, pending: [...data.pending, threatId] });
}
