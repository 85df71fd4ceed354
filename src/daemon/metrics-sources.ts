import type { MetricsSources, QueueView } from "../observability/index.js";
import { queueSummary, type SyncContext } from "../sync/index.js";

/** A scrape reads the queue for several series: one summary serves them all. */
const SUMMARY_REUSE_MS = 500;

/** The scrape-time values of `/metrics`, read from the running engine. */
export function metricsSources(ctx: SyncContext): MetricsSources {
  let cached: { at: number; queue: QueueView; intents: number } | null = null;
  function summary(): { queue: QueueView; intents: number } {
    const now = ctx.clock.now();
    if (cached === null || now - cached.at > SUMMARY_REUSE_MS || now < cached.at) {
      cached = { at: now, queue: queueSummary(ctx.state), intents: Object.keys(ctx.state.intents).length };
    }
    return cached;
  }
  return {
    queue: () => summary().queue,
    unfinishedIntents: () => summary().intents,
    writeBudget: () => ctx.github.budget.snapshot(),
    github: () => ctx.github.stats(),
    platform: () => ctx.platform.stats(),
  };
}
