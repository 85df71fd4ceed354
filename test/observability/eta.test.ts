import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createWriteBudget, type WriteBudget } from "../../src/github/index.js";
import { drainSeconds, drainView, formatEta, type BudgetLimits } from "../../src/observability/index.js";
import { fakeTime, type FakeTime } from "../github/fake-time.js";

/**
 * "The ETA comes from the binding limit": the ETA computed before a drain is checked against the
 * drain itself, through the real write budget on a fake clock, for budgets where each limit binds
 * in turn (per minute, per hour with writes already spent, the interval, a Retry-After pause,
 * GitHub's primary rate limit nearly spent).
 */

const MINUTE = 60_000;
const HOUR = 3_600_000;

interface PrimaryLimit {
  remaining: number;
  limit: number;
  resetAt: number;
}

interface Drain {
  budget: BudgetLimits;
  /** Writes sent before the ETA is asked for, this many ms before it. */
  spent?: number[];
  /** A secondary limit's Retry-After in force: ms from the start. */
  pauseMs?: number;
  primary?: PrimaryLimit;
  /** How long each write takes on the fake clock. */
  latencyMs?: number;
}

/** The ETA at the start, and the time the last of `n` writes went, draining them one by one. */
async function etaAndDrain(n: number, d: Drain): Promise<{ eta: number | null; drained: number }> {
  const time: FakeTime = fakeTime();
  const budget: WriteBudget = createWriteBudget({ ...d.budget, clock: time.clock, sleep: time.sleep });
  // The writes already spent: sent at their times, on the same budget.
  const spent = [...(d.spent ?? [])].sort((a, b) => b - a);
  const start = time.clock.now() + (spent[0] ?? 0);
  for (const ago of spent) {
    time.advance(start - ago - time.clock.now());
    await budget.acquire();
  }
  time.advance(start - time.clock.now());
  if (d.pauseMs !== undefined) budget.pauseUntil(start + d.pauseMs);
  const primary = d.primary && { ...d.primary, resetAt: start + d.primary.resetAt };
  const seen =
    primary === undefined
      ? null
      : {
          remaining: primary.remaining,
          limit: primary.limit,
          resetAt: new Date(primary.resetAt).toISOString(),
        };
  const eta = drainSeconds(n, drainView(budget.snapshot(), seen), time.clock.now());
  let lastSent = start;
  for (let i = 0; i < n; i++) {
    await budget.acquire();
    // The primary limit spent: GitHub answers 403, the gateway holds every write until the reset
    // (src/github/gateway.ts, onLimit) and the drain sends this one again then.
    if (primary !== undefined && primary.remaining === 0) {
      budget.pauseUntil(primary.resetAt);
      await budget.acquire();
      primary.remaining = primary.limit;
      primary.resetAt += HOUR;
    }
    if (primary !== undefined) primary.remaining -= 1;
    lastSent = time.clock.now();
    await time.sleep(d.latencyMs ?? 0);
  }
  return { eta, drained: (lastSent - start) / 1000 };
}

const DEFAULTS = { perMinute: 80, perHour: 500, minIntervalMs: 1000 };

describe("backlog ETA against a drain through the write budget (fake clock)", () => {
  it.each([
    [
      "the interval binds: 100 writes at the defaults take 99 s, not the 12 min 500/h gives",
      100,
      { budget: DEFAULTS },
      99,
    ],
    [
      "per minute binds: 100 writes at 20/min go in five bursts a minute apart",
      100,
      { budget: { perMinute: 20, perHour: 0, minIntervalMs: 0 } },
      240,
    ],
    [
      "per hour binds, with 450 of its 500 spent half an hour ago: 50 now, the rest as those age out",
      100,
      { budget: DEFAULTS, spent: Array.from({ length: 450 }, (_, i) => 30 * MINUTE - i * 1000) },
      30 * 60 + 49,
    ],
    [
      "a Retry-After pause of 90 s in force: nothing before it ends",
      30,
      { budget: DEFAULTS, pauseMs: 90_000 },
      90 + 29,
    ],
    [
      "GitHub's primary limit: 10 points left, reset in 5 min",
      30,
      { budget: DEFAULTS, primary: { remaining: 10, limit: 5000, resetAt: 5 * MINUTE } },
      300 + 19,
    ],
  ] as const)("%s", async (_name, n, drain, expected) => {
    const { eta, drained } = await etaAndDrain(n, drain);
    expect(drained).toBe(expected);
    expect(eta).toBe(expected);
  });

  it("each write taking 300 ms on the clock moves the drain by less than the ETA's rounding and one write per window", async () => {
    for (const drain of [
      { budget: DEFAULTS },
      { budget: { perMinute: 20, perHour: 0, minIntervalMs: 0 } },
      { budget: { perMinute: 0, perHour: 60, minIntervalMs: 0 } },
    ]) {
      const { eta, drained } = await etaAndDrain(150, { ...drain, latencyMs: 300 });
      expect(eta).not.toBeNull();
      expect(Math.abs(drained - (eta ?? 0)), JSON.stringify(drain)).toBeLessThanOrEqual(
        Math.max(2, 0.02 * drained),
      );
    }
  });

  it("for any budget, writes already spent and pause, the ETA is the drain's time to the second", async () => {
    const knob = (max: number) => fc.oneof(fc.constant(0), fc.integer({ min: 1, max }));
    await fc.assert(
      fc.asyncProperty(
        fc.record({ perMinute: knob(30), perHour: knob(120), minIntervalMs: knob(5000) }),
        fc.array(fc.integer({ min: 0, max: HOUR - 1 }), { maxLength: 150 }),
        fc.option(fc.integer({ min: 1, max: 10 * MINUTE }), { nil: undefined }),
        fc.integer({ min: 1, max: 300 }),
        async (budget, spent, pauseMs, n) => {
          const { eta, drained } = await etaAndDrain(n, { budget, spent, ...(pauseMs ? { pauseMs } : {}) });
          if (eta === null) expect(drained).toBe(0);
          else expect(eta).toBe(Math.ceil(drained));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("with no budget, no pause and rate limit to spare, the writes go as fast as GitHub answers", async () => {
    const { eta } = await etaAndDrain(40, { budget: { perMinute: 0, perHour: 0, minIntervalMs: 0 } });
    expect(eta).toBeNull();
    expect(formatEta(40, eta)).toBe("no write budget set: as fast as GitHub answers");
    expect(formatEta(0, 0)).toBe("nothing queued");
    expect(formatEta(100, 99)).toBe("about 1 min 39 s");
    expect(formatEta(100, 120)).toBe("about 2 min");
    expect(formatEta(1000, 4099)).toBe("about 1 h 8 min");
  });
});
