/** Queue classes (contract, "Priorities"), lower first: verdicts, closes/reopens, creates, rest, later. */
export const QueueClass = { verdict: 0, state: 1, create: 2, other: 3, later: 4 } as const;
export type QueueClass = (typeof QueueClass)[keyof typeof QueueClass];
