import { describe, expect, it } from "vitest";
import { createMetrics, type MetricsSources } from "../../src/observability/metrics.js";

/**
 * /metrics names the dashboard reads: `threatbridge_webhook_deliveries_total{outcome}` with outcome
 * accepted | duplicate | ignored | rejected, and `reason` (signature | size | method | payload) on
 * rejected only.
 */

const sources: MetricsSources = {
  queue: () => ({ total: 0, byAction: {}, bySeverity: {}, failing: 0 }),
  unfinishedIntents: () => 0,
  writeBudget: () => ({
    perMinute: 0,
    perHour: 0,
    minIntervalMs: 0,
    acquired: 0,
    usedLastMinute: 0,
    usedLastHour: 0,
    nextSlotAt: 0,
    pausedUntil: null,
  }),
  github: () => ({ requests: 0, rateLimitPoints: 0, notModified: 0, writes: 0, secondaryLimitHits: 0, retries: 0 }),
  platform: () => ({ tokenRequests: 0, requests: 0, retries: 0 }),
};

function series(text: string): string[] {
  return text.split("\n").filter((l) => l.startsWith("threatbridge_webhook_deliveries_total"));
}

describe("webhook delivery metrics", () => {
  it("every outcome and rejection reason is a series from the start, at 0 (dashboards find them on any run)", async () => {
    const metrics = createMetrics({ sources, processMetrics: false });
    expect(series((await metrics.render()).body).sort()).toEqual(
      [
        'threatbridge_webhook_deliveries_total{outcome="accepted"} 0',
        'threatbridge_webhook_deliveries_total{outcome="duplicate"} 0',
        'threatbridge_webhook_deliveries_total{outcome="ignored"} 0',
        'threatbridge_webhook_deliveries_total{outcome="rejected",reason="method"} 0',
        'threatbridge_webhook_deliveries_total{outcome="rejected",reason="payload"} 0',
        'threatbridge_webhook_deliveries_total{outcome="rejected",reason="signature"} 0',
        'threatbridge_webhook_deliveries_total{outcome="rejected",reason="size"} 0',
      ].sort(),
    );
  });

  it("counts each delivery under its outcome", async () => {
    const metrics = createMetrics({ sources, processMetrics: false });
    metrics.webhookDelivery("accepted");
    metrics.webhookDelivery("accepted");
    metrics.webhookDelivery("rejected", "size");
    const text = (await metrics.render()).body;
    expect(series(text)).toContain('threatbridge_webhook_deliveries_total{outcome="accepted"} 2');
    expect(series(text)).toContain(
      'threatbridge_webhook_deliveries_total{outcome="rejected",reason="size"} 1',
    );
    expect(series(text)).toContain('threatbridge_webhook_deliveries_total{outcome="duplicate"} 0');
  });
});
