import { describe, expect, it } from "vitest";
import { createMetrics, type MetricsSources } from "../../src/observability/metrics.js";

/** The value of one series in Prometheus text, e.g. `threatbridge_ready`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);
const clock = { now: () => NOW };

function sources(over: Partial<MetricsSources> = {}): MetricsSources {
  return {
    queue: () => ({ total: 0, byAction: {}, bySeverity: {}, failing: 0 }),
    unfinishedIntents: () => 0,
    writeBudget: () => ({
      perMinute: 0,
      perHour: 0,
      minIntervalMs: 0,
      usedLastMinute: 0,
      usedLastHour: 0,
      acquired: 0,
      pausedUntil: null,
      nextSlotAt: 0,
      recent: [],
    }),
    github: () => ({
      requests: 9,
      rateLimitPoints: 8,
      notModified: 1,
      writes: 3,
      secondaryLimitHits: 1,
      retries: 2,
      byOutcome: [
        { method: "GET", status: "200", count: 6 },
        { method: "GET", status: "304", count: 1 },
        { method: "POST", status: "201", count: 1 },
        { method: "GET", status: "error", count: 1 },
      ],
    }),
    platform: () => ({
      tokenRequests: 1,
      requests: 12,
      retries: 4,
      byOutcome: [
        { method: "GET", status: "200", count: 9 },
        { method: "PATCH", status: "503", count: 2 },
        { method: "PATCH", status: "200", count: 1 },
      ],
    }),
    ...over,
  };
}

async function scrape(s: MetricsSources): Promise<string> {
  return (await createMetrics({ sources: s, clock, processMetrics: false }).render()).body;
}

describe("/metrics: the series the dashboard and the alert rules read", () => {
  it("backlog ETA: the queued work under every limit that binds (contract, github.write_budget)", async () => {
    const budget = {
      perMinute: 80,
      perHour: 500,
      minIntervalMs: 1000,
      usedLastMinute: 0,
      usedLastHour: 0,
      acquired: 0,
      pausedUntil: null as number | null,
      nextSlotAt: 0,
      recent: [] as number[],
    };
    const queued = (total: number, over: Partial<MetricsSources> = {}): MetricsSources =>
      sources({
        queue: () => ({ total, byAction: { create: total }, bySeverity: { high: total }, failing: 0 }),
        writeBudget: () => budget,
        ...over,
      });
    // One a second binds for the hour's first 500 (0..499 s); the other 500 wait for the hour's
    // window to give their slots back, one a second from 3600 s: the last goes at 4099 s.
    expect(sample(await scrape(queued(1000)), "threatbridge_backlog_eta_seconds")).toBe(4099);
    // 100 writes take 99 s at one a second, not the 12 min that 500/h alone gives.
    expect(sample(await scrape(queued(100)), "threatbridge_backlog_eta_seconds")).toBe(99);
    // 450 already sent in the last hour (from 30 min ago): 50 go now, the next wait for those to age out.
    budget.recent = Array.from({ length: 450 }, (_, i) => NOW - 1_800_000 + i * 1000);
    expect(sample(await scrape(queued(100)), "threatbridge_backlog_eta_seconds")).toBe(1800 + 49);
    // A Retry-After in force for 2 minutes: nothing before it ends.
    budget.recent = [];
    budget.pausedUntil = NOW + 120_000;
    expect(sample(await scrape(queued(10)), "threatbridge_backlog_eta_seconds")).toBe(129);
    // GitHub's rate limit: 5 points left until its reset in 10 minutes.
    budget.pausedUntil = null;
    const rateLimit = () => ({
      remaining: 5,
      limit: 5000,
      resetAt: new Date(NOW + 600_000).toISOString(),
      seenAt: new Date(NOW).toISOString(),
    });
    expect(sample(await scrape(queued(10, { rateLimit })), "threatbridge_backlog_eta_seconds")).toBe(604);
    // Nothing queued, or no budget set: the budget makes no wait.
    expect(
      sample(await scrape(sources({ writeBudget: () => budget })), "threatbridge_backlog_eta_seconds"),
    ).toBe(0);
  });

  it("GitHub's rate limit as last seen; 0 and 0 before any answer carried it (the rules read limit > 0 as known)", async () => {
    const seen = await scrape(
      sources({
        rateLimit: () => ({
          remaining: 312,
          limit: 5000,
          resetAt: "2026-11-24T12:30:00.000Z",
          seenAt: "2026-11-24T11:59:00.000Z",
        }),
      }),
    );
    expect(sample(seen, "threatbridge_github_rate_limit_remaining")).toBe(312);
    expect(sample(seen, "threatbridge_github_rate_limit_limit")).toBe(5000);
    expect(sample(seen, "threatbridge_github_rate_limit_reset_timestamp_seconds")).toBe(
      Date.parse("2026-11-24T12:30:00.000Z") / 1000,
    );
    const unseen = await scrape(sources({ rateLimit: () => null }));
    expect(sample(unseen, "threatbridge_github_rate_limit_remaining")).toBe(0);
    expect(sample(unseen, "threatbridge_github_rate_limit_limit")).toBe(0);
  });

  it("retries on both sides are counted, as the GitHub gateway and the platform client report them", async () => {
    const text = await scrape(sources());
    expect(sample(text, "threatbridge_github_retries_total")).toBe(2);
    expect(sample(text, "threatbridge_platform_retries_total")).toBe(4);
  });

  it("requests are counted by method and status on both sides; a request that got no answer is status error", async () => {
    const text = await scrape(sources());
    expect(sample(text, 'threatbridge_github_requests_total{method="GET",status="200"}')).toBe(6);
    expect(sample(text, 'threatbridge_github_requests_total{method="GET",status="304"}')).toBe(1);
    expect(sample(text, 'threatbridge_github_requests_total{method="POST",status="201"}')).toBe(1);
    expect(sample(text, 'threatbridge_github_requests_total{method="GET",status="error"}')).toBe(1);
    expect(sample(text, 'threatbridge_platform_requests_total{method="GET",status="200"}')).toBe(9);
    expect(sample(text, 'threatbridge_platform_requests_total{method="PATCH",status="503"}')).toBe(2);
    // No unlabelled series beside the labelled ones: sum() over the labels is the total.
    expect(sample(text, "threatbridge_github_requests_total")).toBeUndefined();
  });

  it("schedule period, readiness and the oldest unfinished intent's age", async () => {
    const text = await scrape(
      sources({
        schedulePeriodMs: () => 300_000,
        ready: () => true,
        unfinishedIntents: () => 2,
        oldestIntentStartedAt: () => NOW - 90 * 60_000,
      }),
    );
    expect(sample(text, "threatbridge_schedule_period_seconds")).toBe(300);
    expect(sample(text, "threatbridge_ready")).toBe(1);
    expect(sample(text, "threatbridge_oldest_unfinished_intent_age_seconds")).toBe(5400);
    const idle = await scrape(sources({ ready: () => false, oldestIntentStartedAt: () => null }));
    expect(sample(idle, "threatbridge_ready")).toBe(0);
    expect(sample(idle, "threatbridge_oldest_unfinished_intent_age_seconds")).toBe(0);
  });

  it("webhook deliveries by outcome, and by reason when rejected, each series present from the start", async () => {
    const metrics = createMetrics({ sources: sources(), clock, processMetrics: false });
    const before = (await metrics.render()).body;
    expect(sample(before, 'threatbridge_webhook_deliveries_total{outcome="accepted"}')).toBe(0);
    expect(
      sample(before, 'threatbridge_webhook_deliveries_total{outcome="rejected",reason="signature"}'),
    ).toBe(0);
    metrics.webhookDelivery("accepted");
    metrics.webhookDelivery("accepted");
    metrics.webhookDelivery("duplicate");
    metrics.webhookDelivery("rejected", "size");
    const after = (await metrics.render()).body;
    expect(sample(after, 'threatbridge_webhook_deliveries_total{outcome="accepted"}')).toBe(2);
    expect(sample(after, 'threatbridge_webhook_deliveries_total{outcome="duplicate"}')).toBe(1);
    expect(sample(after, 'threatbridge_webhook_deliveries_total{outcome="rejected",reason="size"}')).toBe(1);
    expect(sample(after, 'threatbridge_webhook_deliveries_total{outcome="ignored"}')).toBe(0);
  });

  it("threatbridge_stream_cursor_refused{stream}: 1 while the platform's refusal of the stream's cursor stops it, 0 for the other, both from the start", async () => {
    const quiet = await scrape(sources());
    expect(sample(quiet, 'threatbridge_stream_cursor_refused{stream="assets"}')).toBe(0);
    expect(sample(quiet, 'threatbridge_stream_cursor_refused{stream="threats"}')).toBe(0);
    const stopped = await scrape(sources({ streamsStopped: () => ["threats"] }));
    expect(sample(stopped, 'threatbridge_stream_cursor_refused{stream="assets"}')).toBe(0);
    expect(sample(stopped, 'threatbridge_stream_cursor_refused{stream="threats"}')).toBe(1);
  });
});
