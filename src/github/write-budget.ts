import type { Clock, Sleep } from "../shared/clock.js";
import { GitHubError } from "./errors.js";

/** Client-side pacing of GitHub writes under its secondary rate limits: interval, caps, retry-after pause. */
interface WriteBudgetOptions {
  perMinute: number;
  perHour: number;
  minIntervalMs: number;
  clock: Clock;
  sleep: Sleep;
}

/** For metrics. The used counts only see the last max(perMinute, perHour) writes. */
export interface WriteBudgetSnapshot {
  perMinute: number;
  perHour: number;
  minIntervalMs: number;
  usedLastMinute: number;
  usedLastHour: number;
  acquired: number;
  pausedUntil: number | null;
  nextSlotAt: number;
  /** Times (epoch ms) of the writes of the last hour the windows still hold, oldest first: for an ETA. */
  recent: number[];
}

export interface WriteBudget {
  /** Resolves when a write may be sent, and counts that write. Rejects when `signal` aborts. */
  acquire(signal?: AbortSignal): Promise<void>;
  /** Like `acquire`, but resolves false at once, taking nothing, when the slot would come after `deadlineMs`. */
  tryAcquireBefore(deadlineMs: number, signal?: AbortSignal): Promise<boolean>;
  /** Holds every write until `ms` (epoch ms); a later pause extends, an earlier one is ignored. */
  pauseUntil(ms: number): void;
  /** The earliest time (epoch ms) the next write could go; `clock.now()` or earlier when free. */
  nextSlotAt(): number;
  snapshot(): WriteBudgetSnapshot;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
/** Wake-ups per acquire before giving up: each one is a sleep that ended early or a lost race. */
const MAX_WAKEUPS = 100_000;

/** Fixed-size ring of the most recent write times, oldest first when read. */
class TimestampRing {
  private readonly times: number[];
  private start = 0;
  private size = 0;

  constructor(readonly capacity: number) {
    this.times = new Array<number>(capacity).fill(0);
  }

  push(ms: number): void {
    if (this.capacity === 0) return;
    const index = (this.start + this.size) % this.capacity;
    this.times[index] = ms;
    if (this.size < this.capacity) this.size++;
    else this.start = (this.start + 1) % this.capacity;
  }

  get length(): number {
    return this.size;
  }

  /** The k-th most recent time (1 = newest), or null when fewer than k were recorded. */
  recent(k: number): number | null {
    if (k < 1 || k > this.size) return null;
    return this.times[(this.start + this.size - k) % this.capacity] ?? null;
  }

  /** The recorded times at or after `since`, oldest first. */
  since(since: number): number[] {
    const times: number[] = [];
    for (let k = this.size; k >= 1; k--) {
      const t = this.recent(k);
      if (t !== null && t >= since) times.push(t);
    }
    return times;
  }

  /** How many recorded times are at or after `since` (times are recorded in order). */
  countSince(since: number): number {
    let count = 0;
    for (let k = 1; k <= this.size; k++) {
      const t = this.recent(k);
      if (t === null || t < since) break;
      count++;
    }
    return count;
  }
}

function assertKnob(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0) {
    throw new RangeError(`write budget ${name} must be a whole number ≥ 0 (0 = no limit), got ${value}`);
  }
}

export function createWriteBudget(opts: WriteBudgetOptions): WriteBudget {
  const { perMinute, perHour, minIntervalMs, clock, sleep } = opts;
  assertKnob("perMinute", perMinute);
  assertKnob("perHour", perHour);
  assertKnob("minIntervalMs", minIntervalMs);
  // The windows only ever look at the last max(perMinute, perHour) writes.
  const ring = new TimestampRing(Math.max(perMinute, perHour, 1));
  let pausedUntil = 0;
  let acquired = 0;

  /** Each knob is a lower bound on the next write time; the slot is the largest of them. */
  function nextSlotAt(): number {
    let slot = Math.max(clock.now(), pausedUntil);
    const last = ring.recent(1);
    if (minIntervalMs > 0 && last !== null) slot = Math.max(slot, last + minIntervalMs);
    const minuteEdge = perMinute > 0 ? ring.recent(perMinute) : null;
    if (minuteEdge !== null) slot = Math.max(slot, minuteEdge + MINUTE_MS);
    const hourEdge = perHour > 0 ? ring.recent(perHour) : null;
    if (hourEdge !== null) slot = Math.max(slot, hourEdge + HOUR_MS);
    return slot;
  }

  async function acquireUntil(deadlineMs: number, signal: AbortSignal | undefined): Promise<boolean> {
    for (let wakeups = 0; wakeups < MAX_WAKEUPS; wakeups++) {
      signal?.throwIfAborted();
      const slot = nextSlotAt();
      if (slot > deadlineMs) return false;
      const now = clock.now();
      // Checked and recorded in one synchronous step: no two callers take the same slot.
      if (slot <= now) {
        ring.push(now);
        acquired++;
        return true;
      }
      await sleep(slot - now, signal);
    }
    throw new GitHubError(
      "internal",
      "write budget: the clock did not advance while waiting for a write slot",
    );
  }

  return {
    nextSlotAt,
    async acquire(signal) {
      await acquireUntil(Number.POSITIVE_INFINITY, signal);
    },
    tryAcquireBefore(deadlineMs, signal) {
      return acquireUntil(deadlineMs, signal);
    },
    pauseUntil(ms) {
      pausedUntil = Math.max(pausedUntil, ms);
    },
    snapshot() {
      const now = clock.now();
      return {
        perMinute,
        perHour,
        minIntervalMs,
        usedLastMinute: ring.countSince(now - MINUTE_MS + 1),
        usedLastHour: ring.countSince(now - HOUR_MS + 1),
        acquired,
        pausedUntil: pausedUntil > now ? pausedUntil : null,
        nextSlotAt: nextSlotAt(),
        recent: ring.since(now - HOUR_MS + 1),
      };
    },
  };
}
