import type { GitHubStats, WriteBudgetSnapshot } from "../github/index.js";
import type { RequestCount } from "../shared/request-tally.js";
import type { RateLimitSeen } from "./rate-limit-seen.js";

/**
 * What `/metrics` reads at scrape time, apart from the engine's events: a file of its own so that
 * the metric families (metrics.ts, operations-metrics.ts) depend on it and not on each other.
 */

export interface QueueView {
  total: number;
  byAction: Record<string, number>;
  bySeverity: Record<string, number>;
  failing: number;
}

/** Where the scrape-time values come from; each is called once per scrape. */
export interface MetricsSources {
  queue(): QueueView;
  unfinishedIntents(): number;
  writeBudget(): WriteBudgetSnapshot;
  github(): GitHubStats;
  platform(): { tokenRequests: number; requests: number; retries: number; byOutcome: RequestCount[] };
  /** Epoch ms when the oldest unfinished intent began; null when there is none. */
  oldestIntentStartedAt?(): number | null;
  /** GitHub's primary rate limit as its last answer showed it. */
  rateLimit?(): RateLimitSeen | null;
  /** The schedule's period in ms (0 until the schedule has started). */
  schedulePeriodMs?(): number;
  /** Ms between the starts of the last two polls (the interval actually kept); null until two started. */
  pollIntervalMs?(): number | null;
  /** Scheduled ticks that started no poll: inside the platform's Retry-After window, or merged into a due one. */
  pollTicksSkipped?(): { retry_after: number; busy: number };
  /** Whether `/readyz` answers ready. */
  ready?(): boolean;
  /** The streams (`assets`, `threats`) stopped because the platform refused their saved cursor. */
  streamsStopped?(): readonly string[];
  /** With `sla` configured: open issues past their due date, and due within 7 days; null when off. */
  sla?(): { breached: number; dueWithin7Days: number } | null;
  /** With `acceptance` configured: risk acceptances held, and those ending within 7 days; null when off. */
  acceptances?(): { held: number; endingWithin7Days: number } | null;
}
