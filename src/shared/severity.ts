/** The severity vocabulary: the spec maps it to 0 (informational) to 4 (critical), a name's index. */
export const SEVERITIES = ["informational", "low", "medium", "high", "critical"] as const;
export type SeverityName = (typeof SEVERITIES)[number];

/** The rank (0..4) of a vocabulary name, or null for any other word. */
export function rankOfSeverity(name: string): number | null {
  const rank = (SEVERITIES as readonly string[]).indexOf(name);
  return rank === -1 ? null : rank;
}
