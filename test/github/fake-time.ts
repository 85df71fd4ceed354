import type { Clock, Sleep } from "../../src/shared/clock.js";

/** A clock that moves only when someone sleeps on it (or the test advances it). */
export interface FakeTime {
  clock: Clock;
  sleep: Sleep;
  advance(ms: number): void;
  sleeps: number[];
}

export function fakeTime(start = Date.parse("2026-03-01T00:00:00Z")): FakeTime {
  let now = start;
  const sleeps: number[] = [];
  return {
    clock: { now: () => now },
    sleep: (ms, signal) => {
      signal?.throwIfAborted();
      sleeps.push(ms);
      now += ms;
      return Promise.resolve();
    },
    advance(ms) {
      now += ms;
    },
    sleeps,
  };
}
