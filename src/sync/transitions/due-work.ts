import type { PendingView, PersonChange, QueueEntry } from "../schema.js";

/** How a threat's stored work changes, pure; the entry keeps only what cannot be derived from the state. */

export interface NewWork {
  person?: PersonChange;
  pending?: PendingView;
  /** Work the clock made due (an SLA breach), planned from the record with no read of the threat. */
  timed?: true;
  /** Work that waits for all other work (a feature's backfill): the queue's last class. */
  later?: true;
}

/** New work for a threat: a new entry dated, or an old one's back-off ended; a person's change stays. */
export function withWork(
  current: QueueEntry | undefined,
  work: NewWork,
  fresh: { seq: number; now: string },
): QueueEntry {
  if (current) {
    // Time-driven or backfill work adds nothing to an entry with work already.
    if (work.timed || work.later) return current;
    // Any other work needs the threat read: no longer time-driven only, nor a backfill's.
    const { notBefore: _retryNow, pending, timed: _read, later: _waiting, ...rest } = current;
    // A person's change keeps a create's view; a new version of the threat replaces it.
    const view = work.pending ?? (work.person ? pending : undefined);
    return {
      ...rest,
      ...(work.person ? { person: work.person } : {}),
      ...(view ? { pending: view } : {}),
    };
  }
  return {
    seq: fresh.seq,
    enqueuedAt: fresh.now,
    attempts: 0,
    ...(work.person ? { person: work.person } : {}),
    ...(work.pending ? { pending: work.pending } : {}),
    ...(work.timed ? { timed: true as const } : {}),
    ...(work.later ? { later: true as const } : {}),
  };
}

/** The threat's version changed and nothing is due now: the create's view (of an older version) goes. */
export function withoutPending(current: QueueEntry | undefined): QueueEntry | undefined {
  if (!current?.pending) return current;
  const { pending: _stale, ...rest } = current;
  return rest;
}

/** The person's change became a verdict or was undone. */
export function withoutPerson(current: QueueEntry | undefined): QueueEntry | undefined {
  if (!current?.person) return current;
  const { person: _done, ...rest } = current;
  return rest;
}

/** An attempt failed: counted, with its (scrubbed by the shell) error for `status`. */
export function attemptFailed(current: QueueEntry, detail: string): QueueEntry {
  return { ...current, attempts: current.attempts + 1, lastError: detail };
}

/** Back-off after a failed attempt: 30 s doubling to at most one hour. */
export function backoffMs(attempts: number): number {
  return Math.min(3_600_000, 30_000 * 2 ** Math.max(0, attempts - 1));
}

/** Not retried before the back-off of its attempts has passed (`nowMs`: the shell's clock). */
export function backedOff(current: QueueEntry, nowMs: number): QueueEntry {
  return { ...current, notBefore: nowMs + backoffMs(current.attempts) };
}
