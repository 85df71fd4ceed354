import type { MetricsSources, QueueView, RateLimitSeen } from "../observability/index.js";
import {
  acceptanceCounts,
  heldAcceptances,
  queueSummary,
  slaCounts,
  stoppedStreams,
  type SyncContext,
} from "../sync/index.js";
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
    sla: () => (ctx.config.sla ? slaCounts(ctx.index.slaOpen.values(), ctx.clock.now()) : null),
    acceptances: () =>
      ctx.config.acceptance ? acceptanceCounts(heldAcceptances(ctx.index).values(), ctx.clock.now()) : null,
    streamsStopped: () => stoppedStreams(ctx.state.cursorRefused).map((s) => s.stream),
    ready: () => {
      const current = status();
      return current !== null && readiness(current, ctx.clock.now()).ok;
    },
  };
}
