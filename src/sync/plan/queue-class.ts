/**
 * Queue order classes (contract, "Priorities"): people's verdicts first, then the connector's
 * closes and reopens, then new issues (ordered by severity within the class, queue.ts), then the
 * rest, then work that waits for all other (a feature's backfill). Lower runs first.
 */
export const QueueClass = { verdict: 0, state: 1, create: 2, other: 3, later: 4 } as const;
export type QueueClass = (typeof QueueClass)[keyof typeof QueueClass];
