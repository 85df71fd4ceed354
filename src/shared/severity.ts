/**
 * The severity vocabulary, defined once. The spec: severity is "mapped by
 * consumers to a number from 0 informational to 4 critical"; a name's index is its rank.
 */
export const SEVERITIES = ["informational", "low", "medium", "high", "critical"] as const;
export type SeverityName = (typeof SEVERITIES)[number];

/** The rank (0..4) of a vocabulary name, or null for any other word. */
export function rankOfSeverity(name: string): number | null {
  const rank = (SEVERITIES as readonly string[]).indexOf(name);
  return rank === -1 ? null : rank;
}
