/** The threat statuses the spec names ("States and transitions"); readers keep unknown ones. */
export const THREAT_STATUSES = ["unsolved", "solved", "false_positive", "accepted", "pending"] as const;
export type ThreatStatus = (typeof THREAT_STATUSES)[number];

/** The statuses a caller may set; `pending` is computed by the platform and never settable. */
export const SETTABLE_STATUSES = ["unsolved", "solved", "false_positive", "accepted"] as const;
export type SettableStatus = (typeof SETTABLE_STATUSES)[number];

export function isThreatStatus(status: string): status is ThreatStatus {
  return (THREAT_STATUSES as readonly string[]).includes(status);
}

export function isSettableStatus(status: string): status is SettableStatus {
  return (SETTABLE_STATUSES as readonly string[]).includes(status);
}
