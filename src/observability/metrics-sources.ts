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
  /** The plug-in features' gauges, as the features declare them: listed once, when the metrics are made. */
  featureGauges?(): readonly FeatureGauge[];
}

/** A gauge a feature declares: on `/metrics` whether the feature is configured or not (0 when off). */
export interface FeatureGauge {
  readonly name: string;
  readonly help: string;
  /** Its value at this scrape. */
  value(): number;
}
