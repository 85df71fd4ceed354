import { withWork, type NewWork } from "../transitions/due-work.js";
import { nextSeq, putQueue, type StateCtx } from "./state-updates.js";

/**
 * The queue of due work (derived from the state, not stored beside it). The
 * state stores one entry per subject (records/subject.ts: a threat, or a group under its key) with
 * only what cannot be derived (transitions/due-work.ts); what is due, and in what order, is
 * `dueWork(state)` (plan/queue-order.ts), a function of the entries and the threats' records,
 * computed once per drain.
 * Order (contract, "Priorities"): verdicts from people first, then closes and reopens, then new
 * issues by severity (critical first), then the rest; ties by age. A group follows its members
 * (contract, "Groups": the members' own work before their group's parent): every group subject
 * sorts after every threat's work (run/drain.ts orders the groups among themselves by their plans).
 */

export { backoffMs } from "../transitions/due-work.js";

/** Records new work for a subject (the shell of `withWork`: it numbers a new entry). */
export function enqueue(ctx: StateCtx, subjectId: string, work: NewWork, nowIso: string): void {
  const current = ctx.state.queue[subjectId];
  const seq = current ? current.seq : nextSeq(ctx);
  putQueue(ctx, subjectId, withWork(current, work, { seq, now: nowIso }));
}
