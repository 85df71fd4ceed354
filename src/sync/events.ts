/**
 * What the engine did, as one typed union (issue 7, item 3). The writer emits an event after each
 * outcome; the audit log, the counters behind /metrics and the CLI summary are observers of it.
 */

export type EngineEventType =
  /** Writes the connector made (each one audit line, contract "Logs"). */
  | "created"
  | "updated"
  | "closed"
  | "reopened"
  | "commented"
  | "linked"
  | "verdict_sent"
  /** A create whose full body GitHub refused (422) was sent with a minimal body instead. */
  | "created_minimal"
  /** What the connector learnt or decided about a threat's work. */
  | "adopted"
  | "refused"
  | "failed"
  | "rate_limited"
  | "deleted_issue"
  | "transferred"
  /** A platform write answered 404: the threat left the API (its asset was removed). */
  | "threat_gone";

export interface EngineEvent {
  type: EngineEventType;
  threatId: string;
  /** The issue concerned, where one is. */
  issue?: { repo: string; number: number };
  detail?: string;
}

export type EngineObserver = (event: EngineEvent) => void;

/** Calls every observer with each event, in the order they were given. */
export function fanOut(observers: readonly EngineObserver[]): EngineObserver {
  return (event) => {
    for (const observe of observers) observe(event);
  };
}
