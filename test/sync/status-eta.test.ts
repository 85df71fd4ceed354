import { describe, expect, it } from "vitest";
import { emptyState, type State } from "../../src/sync/schema.js";
import { engineState } from "../../src/sync/records/threat-records.js";
import { formatStatus, summarize } from "../../src/sync/status.js";

/**
 * `status` (which makes no request) counts what the last cycle left in the write budget's windows,
 * a Retry-After in force and GitHub's rate limit in its backlog ETA: the figure `sync`'s progress
 * line and `threatbridge_backlog_eta_seconds` give.
 */

const NOW = Date.parse("2026-11-26T12:00:00Z");
const BUDGET = { perMinute: 80, perHour: 500, minIntervalMs: 1000 };

function stateWith(
  queued: number,
  github?: NonNullable<State["lastCycle"]>["github"],
  error?: string,
): State {
  const state = emptyState();
  for (let i = 0; i < queued; i++) state.queue[`t-${i}`] = { seq: i, enqueuedAt: "", attempts: 0 };
  state.lastCycle = {
    startedAt: new Date(NOW - 60_000).toISOString(),
    finishedAt: new Date(NOW - 30_000).toISOString(),
    ok: true,
    counts: {},
    ...(github ? { github } : {}),
    ...(error !== undefined ? { error } : {}),
  };
  return state;
}

function eta(state: State): { seconds: number | null; text: string } {
  const report = summarize({ state: engineState(state), nowMs: NOW, budget: BUDGET, lock: { held: false } });
  const line = formatStatus(report, NOW)
    .split("\n")
    .find((l) => l.startsWith("backlog:"));
  return { seconds: report.backlog.etaSeconds, text: line ?? "" };
}

describe("status: the backlog's ETA under every limit that binds", () => {
  it("nothing spent: 100 writes one a second take 99 s, not the 12 min 500/h alone gives", () => {
    expect(eta(stateWith(100))).toEqual({
      seconds: 99,
      text: "backlog:    100 queued: about 1 min 39 s at 80/min, 500/h, 1 s apart; 0 failing",
    });
  });

  it("the one word for work waiting on the budget is 'queued', with the budget it is timed at; nothing waiting says so", () => {
    expect(eta(stateWith(4015)).text).toBe(
      "backlog:    4,015 queued: about 8 h at 80/min, 500/h, 1 s apart; 0 failing",
    );
    expect(eta(stateWith(0)).text).toBe("backlog:    nothing queued; 0 failing");
  });

  it("a last cycle that stopped early may have left threats unread: the ETA is of what is queued, 'and more to read'", () => {
    const state = stateWith(10, undefined, "stopped");
    const report = summarize({
      state: engineState(state),
      nowMs: NOW,
      budget: BUDGET,
      lock: { held: false },
    });
    expect(report.backlog.moreToRead).toBe(true);
    expect(eta(state).text).toBe(
      "backlog:    10 queued: about 9 s at 80/min, 500/h, 1 s apart, and more to read; 0 failing (the last cycle stopped before the end of its reads)",
    );
  });

  it("the hour's 500 spent by the last cycle (the last 40 min ago): the writes wait for them to age out", () => {
    const recentWrites = Array.from({ length: 500 }, (_, i) => NOW - 50 * 60_000 + i * 1200);
    const state = stateWith(100, { writes: 500, usedLastHour: 500, recentWrites });
    // The first of those goes out of the hour 10 min from now; then one every 1.2 s as they age out.
    expect(eta(state).seconds).toBe(600 + Math.ceil(99 * 1.2));
  });

  it("a Retry-After in force, and GitHub's rate limit nearly spent, as the last cycle saw them", () => {
    const paused = stateWith(10, {
      writes: 1,
      usedLastHour: 0,
      pausedUntil: new Date(NOW + 90_000).toISOString(),
    });
    expect(eta(paused).seconds).toBe(99);
    const limited = stateWith(10, {
      writes: 1,
      usedLastHour: 0,
      rateLimit: {
        remaining: 2,
        limit: 5000,
        resetAt: new Date(NOW + 300_000).toISOString(),
        seenAt: new Date(NOW - 30_000).toISOString(),
      },
    });
    expect(eta(limited).seconds).toBe(300 + 7);
  });
});
