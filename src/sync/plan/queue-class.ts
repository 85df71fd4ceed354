/**
 * Queue order classes (contract, "Priorities"), lower first: people's verdicts, the connector's
 * closes and reopens, new issues, the rest, and work that waits for all other (a backfill).
 */
export const QueueClass = { verdict: 0, state: 1, create: 2, other: 3, later: 4 } as const;
export type QueueClass = (typeof QueueClass)[keyof typeof QueueClass];
