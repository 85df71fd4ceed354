import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createWriteBudget } from "../../src/github/index.js";
import { fakeTime } from "./fake-time.js";

const MINUTE = 60_000;
const HOUR = 3_600_000;

const step = fc.oneof(
  fc.record({ kind: fc.constant("write" as const) }),
  fc.record({ kind: fc.constant("idle" as const), ms: fc.integer({ min: 0, max: 2 * HOUR }) }),
  fc.record({ kind: fc.constant("pause" as const), ms: fc.integer({ min: 0, max: 10 * MINUTE }) }),
);

describe("WriteBudget (property)", () => {
  it("whatever the knobs and the arrivals, no window is exceeded and no write waits longer than it must", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 0, max: 15 }),
        fc.integer({ min: 0, max: 5000 }),
        fc.array(step, { maxLength: 60 }),
        async (perMinute, perHour, minIntervalMs, steps) => {
          const time = fakeTime();
          const budget = createWriteBudget({
            perMinute,
            perHour,
            minIntervalMs,
            clock: time.clock,
            sleep: time.sleep,
          });
          const granted: number[] = [];
          const pauses: number[] = [];
          for (const s of steps) {
            if (s.kind === "idle") time.advance(s.ms);
            else if (s.kind === "pause") {
              pauses.push(time.clock.now() + s.ms);
              budget.pauseUntil(time.clock.now() + s.ms);
            } else {
              const expected = budget.nextSlotAt();
              await budget.acquire();
              expect(time.clock.now()).toBe(expected);
              // Not before any pause that had been asked for.
              for (const until of pauses) expect(time.clock.now()).toBeGreaterThanOrEqual(until);
              granted.push(time.clock.now());
            }
          }
          for (let i = 0; i < granted.length; i++) {
            const t = granted[i] ?? 0;
            if (i > 0 && minIntervalMs > 0)
              expect(t - (granted[i - 1] ?? 0)).toBeGreaterThanOrEqual(minIntervalMs);
            const inMinute = granted.filter((g) => g > t - MINUTE && g <= t).length;
            const inHour = granted.filter((g) => g > t - HOUR && g <= t).length;
            if (perMinute > 0) expect(inMinute).toBeLessThanOrEqual(perMinute);
            if (perHour > 0) expect(inHour).toBeLessThanOrEqual(perHour);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
