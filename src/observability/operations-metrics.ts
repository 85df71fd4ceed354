import { Counter, Gauge, type Registry } from "prom-client";
import type { Clock } from "../shared/clock.js";
import { drainSeconds, drainView } from "./eta.js";
import type { MetricsSources } from "./metrics-sources.js";

/**
 * The series the dashboard and the alert rules (deploy/grafana, deploy/prometheus) need beyond the
 * engine's own counts: how long the backlog takes, how much of GitHub's rate limit is left, the
 * schedule's period (an alert on "no good cycle for three schedules" cannot know it otherwise),
 * readiness, and the oldest unfinished intent's age (a count of intents cannot say "older than an
 * hour"). All are read when scraped, so none is ever stale.
 */

/** How a webhook delivery ended; `reason` is set on rejected ones only. */
export type WebhookOutcome = "accepted" | "duplicate" | "ignored" | "rejected";
export type WebhookRejection = "signature" | "size" | "method" | "payload" | "content_type" | "timeout";
const WEBHOOK_OUTCOMES: readonly WebhookOutcome[] = ["accepted", "duplicate", "ignored"];
const STREAMS = ["assets", "threats"] as const;
const WEBHOOK_REJECTIONS: readonly WebhookRejection[] = [
  "signature",
  "size",
  "method",
  "payload",
  "content_type",
  "timeout",
];

export interface OperationsMetrics {
  /** Counts one GitHub webhook delivery under `threatbridge_webhook_deliveries_total`. */
  webhookDelivery(outcome: WebhookOutcome, reason?: WebhookRejection): void;
}

export function registerOperationsMetrics(
  registry: Registry,
  sources: MetricsSources,
  clock: Clock,
): OperationsMetrics {
  const registers = [registry];

  const eta: Gauge = new Gauge({
    name: "threatbridge_backlog_eta_seconds",
    help: "Seconds the queued work takes under every limit that binds: the write budget with what its windows hold, a Retry-After pause, GitHub's rate limit (0 when nothing is queued or nothing limits the writes)",
    registers,
    collect() {
      const total = sources.queue().total;
      const view = drainView(sources.writeBudget(), sources.rateLimit?.() ?? null);
      eta.set(total === 0 ? 0 : (drainSeconds(total, view, clock.now()) ?? 0));
    },
  });

  // GitHub's answers carry the limit; before the first one (or from a server without the headers)
  // both read 0, which the rules treat as unknown (`limit > 0`), never as "no rate limit left".
  const rateRemaining: Gauge = new Gauge({
    name: "threatbridge_github_rate_limit_remaining",
    help: "GitHub primary rate-limit points left, as GitHub's last answer showed (0 until one did)",
    registers,
    collect() {
      rateRemaining.set(sources.rateLimit?.()?.remaining ?? 0);
    },
  });
  const rateLimit: Gauge = new Gauge({
    name: "threatbridge_github_rate_limit_limit",
    help: "GitHub primary rate-limit points per window, as GitHub's last answer showed (0 until one did)",
    registers,
    collect() {
      rateLimit.set(sources.rateLimit?.()?.limit ?? 0);
    },
  });
  const rateReset: Gauge = new Gauge({
    name: "threatbridge_github_rate_limit_reset_timestamp_seconds",
    help: "When GitHub resets its primary rate-limit window (Unix time; 0 until an answer showed it)",
    registers,
    collect() {
      const at = sources.rateLimit?.()?.resetAt;
      const ms = at == null ? NaN : Date.parse(at);
      rateReset.set(Number.isNaN(ms) ? 0 : ms / 1000);
    },
  });

  const period: Gauge = new Gauge({
    name: "threatbridge_schedule_period_seconds",
    help: "Seconds between two scheduled cycles (0 until the schedule has started)",
    registers,
    collect() {
      period.set((sources.schedulePeriodMs?.() ?? 0) / 1000);
    },
  });
  // The pace actually kept (a slow platform, a Retry-After, a long cycle stretch it past the period).
  const interval: Gauge = new Gauge({
    name: "threatbridge_poll_interval_seconds",
    help: "Seconds between the starts of the last two polls (cycles): the interval actually kept (0 until two have started)",
    registers,
    collect() {
      interval.set((sources.pollIntervalMs?.() ?? 0) / 1000);
    },
  });
  const skippedTicks: Counter = new Counter({
    name: "threatbridge_poll_ticks_skipped_total",
    help: "Scheduled ticks that started no poll, by reason: retry_after (inside the platform's Retry-After window), busy (a poll was already due)",
    labelNames: ["reason"],
    registers,
    collect() {
      const skipped = sources.pollTicksSkipped?.() ?? { retry_after: 0, busy: 0 };
      skippedTicks.reset();
      for (const [reason, count] of Object.entries(skipped)) skippedTicks.inc({ reason }, count);
    },
  });
  const ready: Gauge = new Gauge({
    name: "threatbridge_ready",
    help: "1 while /readyz answers ready (a recent successful cycle), 0 otherwise",
    registers,
    collect() {
      ready.set(sources.ready?.() === true ? 1 : 0);
    },
  });
  // One series per stream from the start, so that an alert sees the 0 → 1 and the way back.
  const cursorRefused: Gauge = new Gauge({
    name: "threatbridge_stream_cursor_refused",
    help: "1 while the stream is stopped because the platform refused its saved cursor (request/invalid-cursor; `threatbridge rewind` clears it), 0 otherwise",
    labelNames: ["stream"],
    registers,
    collect() {
      const stopped = new Set(sources.streamsStopped?.() ?? []);
      for (const stream of STREAMS) cursorRefused.set({ stream }, stopped.has(stream) ? 1 : 0);
    },
  });
  const oldestIntent: Gauge = new Gauge({
    name: "threatbridge_oldest_unfinished_intent_age_seconds",
    help: "Age of the oldest GitHub write begun but not known to be done (0 when there is none)",
    registers,
    collect() {
      const started = sources.oldestIntentStartedAt?.() ?? null;
      oldestIntent.set(started === null ? 0 : Math.max(0, clock.now() - started) / 1000);
    },
  });

  // The plug-in features' gauges (features/types.ts `FeatureStatus.gauges`): each reads its feature's status counts.
  for (const declared of sources.featureGauges?.() ?? []) {
    const gauge: Gauge = new Gauge({
      name: declared.name,
      help: declared.help,
      registers,
      collect() {
        gauge.set(declared.value());
      },
    });
  }

  const deliveries = new Counter({
    name: "threatbridge_webhook_deliveries_total",
    help: "GitHub webhook deliveries, by outcome (accepted, duplicate, ignored, rejected) and, when rejected, why",
    labelNames: ["outcome", "reason"],
    registers,
  });
  // Every outcome has its series from the start, so that rate() sees the first delivery.
  for (const outcome of WEBHOOK_OUTCOMES) deliveries.inc({ outcome }, 0);
  for (const reason of WEBHOOK_REJECTIONS) deliveries.inc({ outcome: "rejected", reason }, 0);

  return {
    webhookDelivery(outcome, reason) {
      deliveries.inc(outcome === "rejected" && reason !== undefined ? { outcome, reason } : { outcome });
    },
  };
}
