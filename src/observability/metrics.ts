import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { systemClock, type Clock } from "../shared/clock.js";
import { countedAs, type EngineObserver } from "../shared/index.js";
import { registerBuildAndRequestMetrics, type BuildInfo } from "./build-metrics.js";
import { registerOperationsMetrics, type OperationsMetrics } from "./operations-metrics.js";
import type { MetricsSources } from "./metrics-sources.js";

export type { FeatureGauge, MetricsSources, QueueView } from "./metrics-sources.js";
export { buildInfo } from "./build-metrics.js";

/**
 * Prometheus metrics of `run`, in a registry of their own (no global default registry: two
 * daemons in one test process never share a series). What the engine did (events_total, cycles)
 * is counted by observing its events; counts kept elsewhere (GitHub and platform
 * request statistics, the queue, the write budget) are read when scraped, so they are never stale
 * and never double counted.
 */

interface ConnectorMetrics extends OperationsMetrics {
  readonly registry: Registry;
  /** The observer of engine events to subscribe (`ctx.subscribe(metrics.observe)`). */
  observe: EngineObserver;
  render(): Promise<{ contentType: string; body: string }>;
}

interface MetricsOptions {
  sources: MetricsSources;
  clock?: Clock;
  /** Node's process metrics (CPU, memory, event loop lag); default on. */
  processMetrics?: boolean;
  /** `threatbridge_build_info`'s labels; without it the series is not exported. */
  build?: BuildInfo;
  /** Label values shown (as 0) before any work carries them, so that dashboards have a series. */
  knownLabels?: { actions?: readonly string[]; severities?: readonly string[] };
}

/** Sets a labelled gauge from a record; labels seen before but now absent go to 0, not away. */
function setByLabel(gauge: Gauge, label: string, values: Record<string, number>, seen: Set<string>): void {
  for (const key of Object.keys(values)) seen.add(key);
  for (const key of seen) gauge.set({ [label]: key }, values[key] ?? 0);
}

/** A counter that mirrors a monotonic count kept elsewhere (read at scrape time). */
function mirrorCounter(registry: Registry, name: string, help: string, read: () => number): void {
  const counter: Counter = new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      counter.reset();
      counter.inc(Math.max(0, read()));
    },
  });
}

export function createMetrics(opts: MetricsOptions): ConnectorMetrics {
  const { sources } = opts;
  const clock = opts.clock ?? systemClock;
  const registry = new Registry();
  if (opts.processMetrics !== false) {
    collectDefaultMetrics({ register: registry });
    // prom-client's totals of active handles, requests and resources are gauges named like
    // counters, which `promtool check metrics` refuses; the same counts stay by type
    // (`nodejs_active_handles{type}`, …).
    for (const metric of registry.getMetricsAsArray()) {
      if (!(metric instanceof Counter) && metric.name.endsWith("_total"))
        registry.removeSingleMetric(metric.name);
    }
  }
  const registers = [registry];

  const cycles = new Counter({
    name: "threatbridge_cycles_total",
    help: "Cycles run, by outcome",
    labelNames: ["outcome"],
    registers,
  });
  cycles.inc({ outcome: "ok" }, 0);
  cycles.inc({ outcome: "failed" }, 0);
  const events = new Counter({
    name: "threatbridge_events_total",
    help: "What the engine did (issues_created, issues_updated, platform_verdicts, …)",
    labelNames: ["event"],
    registers,
  });
  const relatedWalks = new Counter({
    name: "threatbridge_related_asset_walks_total",
    help: "Walks of an asset's related assets (render.related_assets), by outcome: listed, none, failed",
    labelNames: ["outcome"],
    registers,
  });
  for (const outcome of ["listed", "none", "failed"]) relatedWalks.inc({ outcome }, 0);
  // Labelled by each plug-in feature's audit action (`note`, `project`): as many series as features.
  const featureWrites = new Counter({
    name: "threatbridge_feature_writes_total",
    help: "Writes of the plug-in features (notes, project items), by their audit action",
    labelNames: ["action"],
    registers,
  });
  const duration = new Histogram({
    name: "threatbridge_cycle_duration_seconds",
    help: "How long cycles took (reading both sides and recording the due work)",
    buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600],
    registers,
  });
  const lastTimestamp = new Gauge({
    name: "threatbridge_last_cycle_timestamp_seconds",
    help: "When the last cycle finished (Unix time)",
    registers,
  });
  const lastDuration = new Gauge({
    name: "threatbridge_last_cycle_duration_seconds",
    help: "How long the last cycle took",
    registers,
  });
  const lastSuccess = new Gauge({
    name: "threatbridge_last_cycle_success",
    help: "1 when the last cycle succeeded, 0 when it failed",
    registers,
  });
  const lastOk = new Gauge({
    name: "threatbridge_last_successful_cycle_timestamp_seconds",
    help: "When the last successful cycle finished (Unix time)",
    registers,
  });

  const actionsSeen = new Set<string>(opts.knownLabels?.actions ?? []);
  const severitiesSeen = new Set<string>(opts.knownLabels?.severities ?? []);
  const queueByAction: Gauge = new Gauge({
    name: "threatbridge_queue_size",
    help: "Due work waiting in the queue, by action",
    labelNames: ["action"],
    registers,
    collect() {
      setByLabel(queueByAction, "action", sources.queue().byAction, actionsSeen);
    },
  });
  const queueBySeverity: Gauge = new Gauge({
    name: "threatbridge_queue_size_by_severity",
    help: "Due work waiting in the queue, by threat severity",
    labelNames: ["severity"],
    registers,
    collect() {
      setByLabel(queueBySeverity, "severity", sources.queue().bySeverity, severitiesSeen);
    },
  });
  const queueFailing: Gauge = new Gauge({
    name: "threatbridge_queue_failing",
    help: "Queue entries whose last attempt failed (retried after a back-off)",
    registers,
    collect() {
      queueFailing.set(sources.queue().failing);
    },
  });
  const intents: Gauge = new Gauge({
    name: "threatbridge_unfinished_intents",
    help: "GitHub writes begun but not yet known to be done (resolved at the next cycle)",
    registers,
    collect() {
      intents.set(sources.unfinishedIntents());
    },
  });

  const budgetLimit: Gauge = new Gauge({
    name: "threatbridge_github_write_budget_limit",
    help: "GitHub writes allowed per window (0 = no limit)",
    labelNames: ["window"],
    registers,
    collect() {
      const b = sources.writeBudget();
      budgetLimit.set({ window: "minute" }, b.perMinute);
      budgetLimit.set({ window: "hour" }, b.perHour);
    },
  });
  const budgetUsed: Gauge = new Gauge({
    name: "threatbridge_github_write_budget_used",
    help: "GitHub writes sent within the window",
    labelNames: ["window"],
    registers,
    collect() {
      const b = sources.writeBudget();
      budgetUsed.set({ window: "minute" }, b.usedLastMinute);
      budgetUsed.set({ window: "hour" }, b.usedLastHour);
    },
  });
  const budgetWait: Gauge = new Gauge({
    name: "threatbridge_github_write_budget_wait_seconds",
    help: "Seconds until the next GitHub write may be sent (0 = now)",
    registers,
    collect() {
      budgetWait.set(Math.max(0, sources.writeBudget().nextSlotAt - clock.now()) / 1000);
    },
  });
  const budgetPaused: Gauge = new Gauge({
    name: "threatbridge_github_write_budget_paused",
    help: "1 while GitHub writes are held by a secondary rate limit's retry-after",
    registers,
    collect() {
      budgetPaused.set(sources.writeBudget().pausedUntil === null ? 0 : 1);
    },
  });

  mirrorCounter(
    registry,
    "threatbridge_github_retries_total",
    "GitHub API requests sent again after a rate limit or a transient failure",
    () => sources.github().retries,
  );
  mirrorCounter(
    registry,
    "threatbridge_github_rate_limit_points_total",
    "GitHub primary rate-limit points spent (a 304 costs none)",
    () => sources.github().rateLimitPoints,
  );
  mirrorCounter(
    registry,
    "threatbridge_github_not_modified_total",
    "GitHub reads answered 304",
    () => sources.github().notModified,
  );
  mirrorCounter(
    registry,
    "threatbridge_github_writes_total",
    "GitHub writes sent",
    () => sources.github().writes,
  );
  mirrorCounter(
    registry,
    "threatbridge_github_secondary_limit_hits_total",
    "GitHub secondary rate limits met",
    () => sources.github().secondaryLimitHits,
  );
  mirrorCounter(
    registry,
    "threatbridge_platform_token_requests_total",
    "Access tokens requested from the platform's token endpoint",
    () => sources.platform().tokenRequests,
  );
  mirrorCounter(
    registry,
    "threatbridge_platform_retries_total",
    "Platform API requests retried",
    () => sources.platform().retries,
  );

  registerBuildAndRequestMetrics(registry, sources, opts.build);
  const operations = registerOperationsMetrics(registry, sources, clock);

  return {
    registry,
    webhookDelivery: operations.webhookDelivery,
    observe(event) {
      // `threatbridge_events_total{event}` is labelled with the cycle summary's names (shared/engine-events.ts `countedAs`).
      const counted = countedAs(event);
      // A walk that read nothing adds nothing: no series appears at 0 for it.
      if (counted && counted.by > 0) events.inc({ event: counted.name }, counted.by);
      if (event.type === "related_assets_read") relatedWalks.inc({ outcome: event.outcome });
      if (event.type === "feature_written") featureWrites.inc({ action: event.action });
      if (event.type !== "cycle_finished") return;
      cycles.inc({ outcome: event.ok ? "ok" : "failed" });
      duration.observe(event.durationMs / 1000);
      lastTimestamp.set(event.at / 1000);
      lastDuration.set(event.durationMs / 1000);
      lastSuccess.set(event.ok ? 1 : 0);
      if (event.ok) lastOk.set(event.at / 1000);
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
