import { afterEach, describe, expect, it } from "vitest";
import { metricsSources } from "../../src/daemon/index.js";
import { createMetrics } from "../../src/observability/metrics.js";
import type { Sleep } from "../../src/shared/clock.js";
import { firstCycleDone, startDaemonWorld, until, type DaemonWorld } from "./daemon-world.js";

/**
 * A limiting platform is respected by the schedule (spec "Errors" rule 1: never ask before the
 * platform said you may): a 429's Retry-After pushes the next poll past its window, and /metrics
 * shows the interval the polls actually kept. The daemon and the platform client share a clock the
 * test moves; the loop's idle waits end only on a tick, so nothing here waits on a wall clock.
 */

let world: DaemonWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** An idle wait that lasts until the loop is poked (a tick, a stop). */
const untilPoked: Sleep = (_ms, signal) =>
  new Promise((_resolve, reject) => {
    signal?.addEventListener("abort", () => reject(new Error("poked")), { once: true });
  });

describe("the schedule respects the platform's Retry-After", () => {
  it("a 429's Retry-After pushes the next poll back: ticks inside the window poll nothing, the first tick after it polls", async () => {
    let now = Date.now();
    const clock = { now: () => now };
    world = await startDaemonWorld(undefined, { clock });
    const w = world;
    const daemon = w.daemon({ clock, sleep: untilPoked });
    const metrics = createMetrics({
      sources: metricsSources(w.ctx, { status: () => daemon.status() }),
      processMetrics: false,
    });
    const running = daemon.run();
    await firstCycleDone(w, daemon, "the first cycle and its work (issues, links)");

    // The next poll meets a 429 asking for 10 minutes (longer than a cycle waits within itself).
    w.sim.sim.setFaults({ rate_429: 1, retry_after_seconds: 600 });
    now += 15_000;
    const limitedAt = now;
    w.scheduler.tick();
    // A poll the platform's pause cuts short is a partial cycle, not a failed one (the state keeps
    // what it read, and the rest is read after the pause).
    await until(() => daemon.status().cycles.ok === 2, "the poll that met the 429");
    w.sim.sim.setFaults({});
    const sent = w.sim.sim.stats().requests;

    // Ticks inside the window start no poll: nothing is sent to the platform.
    for (const at of [30_000, 300_000, 599_000]) {
      now = limitedAt + at;
      const skipped = daemon.status().poll.skipped.retry_after;
      w.scheduler.tick();
      await until(() => daemon.status().poll.skipped.retry_after === skipped + 1, "the tick to be skipped");
    }
    expect(w.sim.sim.stats().requests).toBe(sent);
    expect(daemon.status().cycles).toEqual({ ok: 2, failed: 0 });

    // The first tick after the window polls.
    now = limitedAt + 600_000;
    w.scheduler.tick();
    await until(() => daemon.status().cycles.ok === 3, "the poll after the window");
    expect(w.sim.sim.stats().requests).toBeGreaterThan(sent);
    expect(daemon.status().poll).toEqual({ intervalMs: 600_000, skipped: { retry_after: 3, busy: 0 } });
    const scrape = (await metrics.render()).body;
    expect(scrape).toMatch(/^threatbridge_poll_interval_seconds 600$/m);
    expect(scrape).toMatch(/^threatbridge_poll_ticks_skipped_total\{reason="retry_after"\} 3$/m);
    expect(scrape).toMatch(/^threatbridge_poll_ticks_skipped_total\{reason="busy"\} 0$/m);

    daemon.stop();
    await running;
  });
});
