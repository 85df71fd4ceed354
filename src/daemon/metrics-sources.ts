import type { MetricsSources, QueueView, RateLimitSeen } from "../observability/index.js";
import { queueSummary, stoppedStreams, type SyncContext } from "../sync/index.js";
import { featureGauges, featuresFor } from "../sync/features/registry.js";
import type { FeatureCounts } from "../sync/features/types.js";
import { featureCounts } from "../sync/status.js";
import type { DaemonStatus } from "./daemon.js";
import { readiness } from "./probes.js";

/** A scrape reads the queue for several series: one summary serves them all. */
const SUMMARY_REUSE_MS = 500;

export interface MetricsSourcesOptions {
  /** The daemon's status (schedule period, readiness); null before the daemon exists. */
  status?: () => DaemonStatus | null;
  /** GitHub's rate limit as its last answer showed it. */
  rateLimit?: () => RateLimitSeen | null;
}

interface Summary {
  at: number;
  queue: QueueView;
  intents: number;
  oldestIntentAt: number | null;
  /** The status counts of the configured features that have gauges: once a scrape, for all their gauges. */
  features: Record<string, FeatureCounts>;
}

/** The counts the features' gauges read, as `status` counts them; a feature not configured has none. */
function gaugedCounts(ctx: SyncContext, nowMs: number): Record<string, FeatureCounts> {
  const gauged = featuresFor(ctx.config).filter((f) => f.status?.gauges !== undefined);
  return gauged.length === 0 ? {} : featureCounts(gauged, ctx.state, nowMs);
}

/** The oldest `startedAt` of the unfinished intents (epoch ms); unparsable dates are skipped. */
function oldestStart(intents: Record<string, { startedAt: string }>): number | null {
  let oldest: number | null = null;
  for (const intent of Object.values(intents)) {
    const at = Date.parse(intent.startedAt);
    if (!Number.isNaN(at) && (oldest === null || at < oldest)) oldest = at;
  }
  return oldest;
}

/** The scrape-time values of `/metrics`, read from the running engine. */
export function metricsSources(ctx: SyncContext, opts: MetricsSourcesOptions = {}): MetricsSources {
  let cached: Summary | null = null;
  function summary(): Summary {
    const now = ctx.clock.now();
    if (cached === null || now - cached.at > SUMMARY_REUSE_MS || now < cached.at) {
      cached = {
        at: now,
        queue: queueSummary(ctx.state),
        intents: Object.keys(ctx.state.intents).length,
        oldestIntentAt: oldestStart(ctx.state.intents),
        features: gaugedCounts(ctx, now),
      };
    }
    return cached;
  }
  const status = opts.status ?? (() => null);
  return {
    queue: () => summary().queue,
    unfinishedIntents: () => summary().intents,
    oldestIntentStartedAt: () => summary().oldestIntentAt,
    writeBudget: () => ctx.github.budget.snapshot(),
    github: () => ctx.github.stats(),
    platform: () => ctx.platform.stats(),
    rateLimit: () => opts.rateLimit?.() ?? null,
    schedulePeriodMs: () => status()?.periodMs ?? 0,
    pollIntervalMs: () => status()?.poll.intervalMs ?? null,
    pollTicksSkipped: () => status()?.poll.skipped ?? { retry_after: 0, busy: 0 },
    featureGauges: () =>
      featureGauges().map((gauge) => ({
        name: gauge.name,
        help: gauge.help,
        value: () => summary().features[gauge.feature]?.[gauge.count] ?? 0,
      })),
    streamsStopped: () => stoppedStreams(ctx.state.cursorRefused).map((s) => s.stream),
    ready: () => {
      const current = status();
      return current !== null && readiness(current, ctx.clock.now()).ok;
    },
  };
}
