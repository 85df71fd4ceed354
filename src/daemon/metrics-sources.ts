import type { MetricsSources, QueueView, RateLimitSeen } from "../observability/index.js";
import {
  acceptanceCounts,
  heldAcceptances,
  queueSummary,
  stoppedStreams,
  type SyncContext,
} from "../sync/index.js";
import { featuresFor } from "../sync/features/registry.js";
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
  /** Read from every stored record's SLA column: once a scrape, for both of its gauges. */
  sla: { breached: number; dueWithin7Days: number } | null;
}

/** The SLA's gauges as the feature counts them for `status`; null when it is not configured. */
function slaFromFeature(
  ctx: SyncContext,
  nowMs: number,
): { breached: number; dueWithin7Days: number } | null {
  const sla = featuresFor(ctx.config).filter((f) => f.name === "sla");
  const counts = featureCounts(sla, ctx.state, nowMs)["sla"];
  return counts ? { breached: counts["breached"] ?? 0, dueWithin7Days: counts["dueWithin7Days"] ?? 0 } : null;
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
        sla: slaFromFeature(ctx, now),
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
    sla: () => summary().sla,
    acceptances: () =>
      ctx.config.acceptance ? acceptanceCounts(heldAcceptances(ctx.index).values(), ctx.clock.now()) : null,
    streamsStopped: () => stoppedStreams(ctx.state.cursorRefused).map((s) => s.stream),
    ready: () => {
      const current = status();
      return current !== null && readiness(current, ctx.clock.now()).ok;
    },
  };
}
