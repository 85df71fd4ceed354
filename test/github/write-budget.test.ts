import { describe, expect, it } from "vitest";
import { createWriteBudget, type WriteBudget } from "../../src/github/index.js";
import { fakeTime, type FakeTime } from "./fake-time.js";

const MINUTE = 60_000;
const HOUR = 3_600_000;

function budgetWith(knobs: { perMinute: number; perHour: number; minIntervalMs: number }): {
  budget: WriteBudget;
  time: FakeTime;
  t0: number;
} {
  const time = fakeTime();
  return {
    budget: createWriteBudget({ ...knobs, clock: time.clock, sleep: time.sleep }),
    time,
    t0: time.clock.now(),
  };
}

/** Acquires n slots one after another and returns when each was granted, relative to t0. */
async function grantTimes(budget: WriteBudget, time: FakeTime, t0: number, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    await budget.acquire();
    times.push(time.clock.now() - t0);
  }
  return times;
}

/** The most writes that fall in any rolling window of `windowMs` (times ascending). */
function busiestWindow(times: number[], windowMs: number): number {
  let best = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while ((times[end] ?? 0) - (times[start] ?? 0) >= windowMs) start++;
    best = Math.max(best, end - start + 1);
  }
  return best;
}

describe("WriteBudget", () => {
  it("per_minute: the write past the limit waits until the oldest write leaves the rolling minute", async () => {
    const { budget, time, t0 } = budgetWith({ perMinute: 3, perHour: 0, minIntervalMs: 0 });
    expect(await grantTimes(budget, time, t0, 5)).toEqual([0, 0, 0, MINUTE, MINUTE]);
  });

  it("per_hour: the write past the limit waits a rolling hour", async () => {
    const { budget, time, t0 } = budgetWith({ perMinute: 0, perHour: 4, minIntervalMs: 0 });
    expect(await grantTimes(budget, time, t0, 6)).toEqual([0, 0, 0, 0, HOUR, HOUR]);
  });

  it("min_interval_ms spaces consecutive writes", async () => {
    const { budget, time, t0 } = budgetWith({ perMinute: 0, perHour: 0, minIntervalMs: 1000 });
    expect(await grantTimes(budget, time, t0, 4)).toEqual([0, 1000, 2000, 3000]);
  });

  it("GitHub.com defaults (80/min, 500/h, 1 s) keep every rolling minute and hour under the limits", async () => {
    const { budget, time, t0 } = budgetWith({ perMinute: 80, perHour: 500, minIntervalMs: 1000 });
    const times = await grantTimes(budget, time, t0, 1600);
    expect(busiestWindow(times, MINUTE)).toBeLessThanOrEqual(80);
    expect(busiestWindow(times, HOUR)).toBe(500);
    // Steady state is the hourly limit: 1,600 writes need a bit over three hours, not 1,600 s.
    expect(times.at(-1)).toBeGreaterThanOrEqual(3 * HOUR);
  });

  it("0 means no limit: a thousand writes go at once", async () => {
    const { budget, time, t0 } = budgetWith({ perMinute: 0, perHour: 0, minIntervalMs: 0 });
    const times = await grantTimes(budget, time, t0, 1000);
    expect(times.every((t) => t === 0)).toBe(true);
    expect(time.sleeps).toEqual([]);
  });

  it("pauseUntil holds every write until then; an earlier pause does not shorten it", async () => {
    const { budget, time, t0 } = budgetWith({ perMinute: 0, perHour: 0, minIntervalMs: 0 });
    budget.pauseUntil(t0 + 30_000);
    budget.pauseUntil(t0 + 5_000);
    expect(budget.nextSlotAt()).toBe(t0 + 30_000);
    expect(budget.snapshot().pausedUntil).toBe(t0 + 30_000);
    expect(await grantTimes(budget, time, t0, 2)).toEqual([30_000, 30_000]);
    expect(budget.snapshot().pausedUntil).toBeNull();
  });

  it("tryAcquireBefore takes nothing and answers false when the next slot is past the deadline", async () => {
    const { budget, time, t0 } = budgetWith({ perMinute: 1, perHour: 0, minIntervalMs: 0 });
    expect(await budget.tryAcquireBefore(t0)).toBe(true);
    expect(await budget.tryAcquireBefore(t0 + MINUTE - 1)).toBe(false);
    expect(time.clock.now()).toBe(t0);
    expect(budget.snapshot().acquired).toBe(1);
    expect(await budget.tryAcquireBefore(t0 + MINUTE)).toBe(true);
    expect(time.clock.now()).toBe(t0 + MINUTE);
    expect(budget.snapshot().acquired).toBe(2);
  });

  it("nextSlotAt and snapshot report the windows", async () => {
    const { budget, time, t0 } = budgetWith({ perMinute: 2, perHour: 10, minIntervalMs: 500 });
    expect(budget.nextSlotAt()).toBe(t0);
    await grantTimes(budget, time, t0, 2);
    expect(budget.nextSlotAt()).toBe(t0 + MINUTE);
    expect(budget.snapshot()).toMatchObject({
      usedLastMinute: 2,
      usedLastHour: 2,
      acquired: 2,
      nextSlotAt: t0 + MINUTE,
      recent: [t0, t0 + 500],
    });
    // Writes older than an hour are no longer in any window: an ETA does not count them.
    time.advance(HOUR - 250);
    expect(budget.snapshot().recent).toEqual([t0 + 500]);
  });

  it("an aborted acquire rejects and takes no slot", async () => {
    const { budget } = budgetWith({ perMinute: 0, perHour: 0, minIntervalMs: 0 });
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(budget.acquire(controller.signal)).rejects.toThrow("stop");
    expect(budget.snapshot().acquired).toBe(0);
  });

  it("concurrent acquires never share a slot", async () => {
    const { budget, time, t0 } = budgetWith({ perMinute: 0, perHour: 0, minIntervalMs: 1000 });
    await Promise.all([budget.acquire(), budget.acquire(), budget.acquire()]);
    expect(budget.snapshot().acquired).toBe(3);
    // Three writes 1 s apart: the last one cannot have gone before t0 + 2 s.
    expect(time.clock.now() - t0).toBeGreaterThanOrEqual(2000);
  });

  it("rejects a negative or fractional knob", () => {
    const time = fakeTime();
    expect(() => createWriteBudget({ perMinute: -1, perHour: 0, minIntervalMs: 0, ...time })).toThrow(
      RangeError,
    );
    expect(() => createWriteBudget({ perMinute: 0, perHour: 1.5, minIntervalMs: 0, ...time })).toThrow(
      RangeError,
    );
  });
});
