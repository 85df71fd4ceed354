import { afterEach, describe, expect, it } from "vitest";
import { liveness, metricsSources, readiness, type DaemonStatus } from "../../src/daemon/index.js";
import { startHealthServer, type RunningHealthServer } from "../../src/observability/index.js";
import { buildInfo, createMetrics } from "../../src/observability/metrics.js";
import { gate, REPO, startDaemonWorld, until, type DaemonWorld } from "../daemon/daemon-world.js";
import { runCycle, type EngineEvent } from "../../src/sync/index.js";

let world: DaemonWorld | undefined;
let server: RunningHealthServer | undefined;
afterEach(async () => {
  await server?.close();
  await world?.close();
  server = undefined;
  world = undefined;
});

/** The value of one series in Prometheus text, e.g. `threatbridge_cycles_total{outcome="ok"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("run: /readyz and /metrics over the real engine", () => {
  it("is not ready until the first cycle completes, then ready; /metrics counts what the cycle did", async () => {
    world = await startDaemonWorld();
    const w = world;
    let status: (() => DaemonStatus) | null = null;
    const metrics = createMetrics({ sources: metricsSources(w.ctx, { status: () => status?.() ?? null }) });
    w.ctx.subscribe(metrics.observe);
    const held = gate();
    const daemon = w.daemon({
      engine: {
        runCycle: async (ctx, opts) => {
          await held.promise;
          return runCycle(ctx, opts);
        },
      },
    });
    server = await startHealthServer({
      host: "127.0.0.1",
      port: 0,
      liveness: () => liveness(daemon.status()),
      readiness: () => readiness(daemon.status(), Date.now()),
      metrics: () => metrics.render(),
    });
    status = () => daemon.status();
    const url = server.url;
    const running = daemon.run();

    await until(() => daemon.status().phase === "running", "the daemon to start");
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const before = await fetch(`${url}/readyz`);
    expect(before.status).toBe(503);
    expect(await before.json()).toMatchObject({ reason: "the first cycle has not completed yet" });
    // threatbridge_ready says what /readyz says, and the schedule's period is the daemon's.
    const unready = await (await fetch(`${url}/metrics`)).text();
    expect(sample(unready, "threatbridge_ready")).toBe(0);
    expect(daemon.status().periodMs).toBeGreaterThan(0);
    expect(sample(unready, "threatbridge_schedule_period_seconds")).toBe(daemon.status().periodMs / 1000);

    held.open();
    await until(
      () => daemon.status().cycles.ok === 1 && w.gh.issues(REPO).length === w.eligible.length,
      "the first cycle and its work",
    );
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    expect(sample(await (await fetch(`${url}/metrics`)).text(), "threatbridge_ready")).toBe(1);

    // A second cycle: what the drains did is counted once, whatever each cycle's own summary says.
    w.scheduler.tick();
    await until(() => daemon.status().cycles.ok === 2, "the second cycle");
    await until(() => Object.keys(w.ctx.state.queue).length === 0, "the queue to drain");
    const text = await (await fetch(`${url}/metrics`)).text();
    const n = w.eligible.length;
    expect(sample(text, 'threatbridge_cycles_total{outcome="ok"}')).toBe(2);
    expect(sample(text, 'threatbridge_cycles_total{outcome="failed"}')).toBe(0);
    expect(sample(text, 'threatbridge_events_total{event="issues_created"}')).toBe(n);
    expect(sample(text, 'threatbridge_events_total{event="platform_links"}')).toBe(n);
    // The queue is drained: no action has work waiting.
    expect(text).not.toMatch(/^threatbridge_queue_size\{action="\w+"\} [1-9]/m);
    expect(sample(text, "threatbridge_unfinished_intents")).toBe(0);
    expect(sample(text, "threatbridge_platform_token_requests_total")).toBe(1);
    expect(sample(text, "threatbridge_github_writes_total")).toBe(world.gh.counters().writes);
    expect(sample(text, "threatbridge_github_rate_limit_points_total")).toBeGreaterThan(0);
    expect(sample(text, 'threatbridge_github_write_budget_limit{window="minute"}')).toBe(0);
    expect(sample(text, "threatbridge_last_cycle_success")).toBe(1);
    expect(sample(text, "threatbridge_last_cycle_timestamp_seconds")).toBeGreaterThan(1_700_000_000);
    expect(sample(text, "threatbridge_cycle_duration_seconds_count")).toBe(2);
    expect(text).toContain("process_cpu_user_seconds_total");

    daemon.stop();
    await running;
    expect((await fetch(`${url}/healthz`)).status).toBe(503);
  });

  it("keeps each daemon's series apart (no global registry)", async () => {
    const sources = {
      queue: () => ({ total: 3, byAction: { create: 3 }, bySeverity: { high: 3 }, failing: 0 }),
      unfinishedIntents: () => 0,
      writeBudget: () => ({
        perMinute: 80,
        perHour: 500,
        minIntervalMs: 1000,
        usedLastMinute: 2,
        usedLastHour: 9,
        acquired: 9,
        pausedUntil: null,
        nextSlotAt: 0,
        recent: [],
      }),
      github: () => ({
        requests: 5,
        rateLimitPoints: 4,
        notModified: 1,
        writes: 2,
        secondaryLimitHits: 0,
        retries: 0,
        byOutcome: [],
      }),
      platform: () => ({ tokenRequests: 1, requests: 7, retries: 0, byOutcome: [] }),
    };
    const a = createMetrics({ sources, processMetrics: false, knownLabels: { severities: ["critical"] } });
    const b = createMetrics({ sources, processMetrics: false });
    for (let n = 1; n <= 3; n += 1)
      a.observe({ type: "created", threatId: `t${n}`, issue: { repo: "o/r", number: n } });
    a.observe({ type: "cycle_finished", ok: true, at: Date.UTC(2026, 0, 1), durationMs: 1500 });
    const textA = (await a.render()).body;
    const textB = (await b.render()).body;
    expect(sample(textA, 'threatbridge_events_total{event="issues_created"}')).toBe(3);
    expect(sample(textB, 'threatbridge_events_total{event="issues_created"}')).toBeUndefined();
    expect(sample(textA, 'threatbridge_queue_size{action="create"}')).toBe(3);
    expect(sample(textA, 'threatbridge_queue_size_by_severity{severity="high"}')).toBe(3);
    // A known severity with nothing queued still has its series, at 0.
    expect(sample(textA, 'threatbridge_queue_size_by_severity{severity="critical"}')).toBe(0);
    expect(sample(textA, 'threatbridge_github_write_budget_used{window="hour"}')).toBe(9);
    expect(sample(textA, "threatbridge_last_cycle_duration_seconds")).toBe(1.5);
  });

  it("/metrics is Prometheus text that promtool's check accepts: only counters end in _total, the process metrics included", async () => {
    const text = (await createMetrics({ sources: idleSources }).render()).body;
    const families = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => ({ name, type }));
    expect(families.some((f) => f.name?.startsWith("nodejs_"))).toBe(true);
    // `promtool check metrics` exits non-zero on "non-counter metrics should not have _total suffix"
    // and on a counter without it.
    const misnamed = families.filter((f) => (f.type === "counter") !== f.name?.endsWith("_total"));
    expect(misnamed).toEqual([]);
  });

  it("threatbridge_build_info is 1 with the version, the revision (unknown when not given) and the Node version", async () => {
    const build = buildInfo("1.2.3", { THREATBRIDGE_REVISION: "0d9e3b4" }, "v22.13.0");
    const text = (await createMetrics({ sources: idleSources, processMetrics: false, build }).render()).body;
    expect(sample(text, 'threatbridge_build_info{version="1.2.3",revision="0d9e3b4",node="v22.13.0"}')).toBe(
      1,
    );
    expect(buildInfo("1.2.3", {}).revision).toBe("unknown");
    expect(buildInfo("1.2.3", { THREATBRIDGE_REVISION: " " }).revision).toBe("unknown");
    expect(buildInfo("1.2.3", {}).node).toBe(process.version);
  });

  it("observes engine events: each counted once under the cycle summary's name, cycles by outcome", async () => {
    const m = createMetrics({ sources: idleSources, processMetrics: false });
    const issue = { repo: "acme/threats", number: 1 };
    const events: EngineEvent[] = [
      { type: "cycle_started", at: 0 },
      { type: "stream_read", stream: "threats", items: 4 },
      { type: "stream_read", stream: "assets", items: 0 },
      { type: "created", threatId: "t1", issue },
      { type: "cycle_finished", ok: true, at: Date.UTC(2026, 0, 1), durationMs: 2000 },
      // Work the daemon drains between cycles counts too.
      { type: "created", threatId: "t2", issue },
      { type: "closed", threatId: "t1", issue },
      { type: "reopened", threatId: "t1", issue },
      { type: "cycle_started", at: 0 },
      { type: "cycle_failed", error: "platform down" },
      { type: "cycle_finished", ok: false, at: Date.UTC(2026, 0, 2), durationMs: 500 },
    ];
    for (const e of events) m.observe(e);
    const text = (await m.render()).body;
    expect(sample(text, 'threatbridge_events_total{event="issues_created"}')).toBe(2);
    expect(sample(text, 'threatbridge_events_total{event="issues_state_changed"}')).toBe(2);
    expect(sample(text, 'threatbridge_events_total{event="threats_read"}')).toBe(4);
    expect(sample(text, 'threatbridge_events_total{event="cycle_errors"}')).toBe(1);
    // A walk that read nothing makes no series, as before.
    expect(sample(text, 'threatbridge_events_total{event="assets_read"}')).toBeUndefined();
    expect(sample(text, 'threatbridge_cycles_total{outcome="ok"}')).toBe(1);
    expect(sample(text, 'threatbridge_cycles_total{outcome="failed"}')).toBe(1);
    expect(sample(text, "threatbridge_last_cycle_success")).toBe(0);
    expect(sample(text, "threatbridge_last_cycle_duration_seconds")).toBe(0.5);
    expect(sample(text, "threatbridge_last_successful_cycle_timestamp_seconds")).toBe(
      Date.UTC(2026, 0, 1) / 1000,
    );
    expect(sample(text, "threatbridge_cycle_duration_seconds_count")).toBe(2);
  });

  it("counts related-asset walks by outcome (render.related_assets), every outcome at 0 before any", async () => {
    const m = createMetrics({ sources: idleSources, processMetrics: false });
    const before = (await m.render()).body;
    for (const outcome of ["listed", "none", "failed"])
      expect(sample(before, `threatbridge_related_asset_walks_total{outcome="${outcome}"}`)).toBe(0);
    const events: EngineEvent[] = [
      { type: "related_assets_read", assetId: "a1", outcome: "listed" },
      { type: "related_assets_read", assetId: "a2", outcome: "listed" },
      { type: "related_assets_read", assetId: "a3", outcome: "none" },
      { type: "related_assets_read", assetId: "a4", outcome: "failed" },
    ];
    for (const e of events) m.observe(e);
    const text = (await m.render()).body;
    expect(sample(text, 'threatbridge_related_asset_walks_total{outcome="listed"}')).toBe(2);
    expect(sample(text, 'threatbridge_related_asset_walks_total{outcome="none"}')).toBe(1);
    expect(sample(text, 'threatbridge_related_asset_walks_total{outcome="failed"}')).toBe(1);
    expect(sample(text, 'threatbridge_events_total{event="related_asset_walks"}')).toBe(4);
  });

  it("counts the plug-in features' writes by their audit action, and in the events' feature_writes", async () => {
    const m = createMetrics({ sources: idleSources, processMetrics: false });
    const issue = { repo: "acme/sec", number: 7 };
    const events: EngineEvent[] = [
      { type: "feature_written", threatId: "t1", issue, action: "note", detail: "section" },
      { type: "feature_written", threatId: "t2", issue, action: "note", detail: "section" },
      { type: "feature_written", threatId: "t1", issue, action: "project", detail: "added" },
    ];
    for (const e of events) m.observe(e);
    const text = (await m.render()).body;
    expect(sample(text, 'threatbridge_feature_writes_total{action="note"}')).toBe(2);
    expect(sample(text, 'threatbridge_feature_writes_total{action="project"}')).toBe(1);
    expect(sample(text, 'threatbridge_events_total{event="feature_writes"}')).toBe(3);
  });
});

const idleSources = {
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
    requests: 0,
    rateLimitPoints: 0,
    notModified: 0,
    writes: 0,
    secondaryLimitHits: 0,
    retries: 0,
    byOutcome: [],
  }),
  platform: () => ({ tokenRequests: 0, requests: 0, retries: 0, byOutcome: [] }),
};
