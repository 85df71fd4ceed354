import { existsSync } from "node:fs";
import { mkdir, readFile, readdir, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  LEASE_MS,
  LockHeldError,
  RENEW_EVERY_MS,
  StateError,
  acquireLock,
  inspectLock,
  type Lock,
  type LockTimer,
} from "../../src/state/index.js";
import { withTempDir } from "./helpers.js";

/** Contract, "Command line": a holder on another host stops blocking within 60 s of its last sign of life. */

const T0 = Date.parse("2026-03-01T10:00:00Z");
let dir: string;
let cleanup: () => Promise<void>;
let statePath: string;
let lockPath: string;
const locks: Lock[] = [];

beforeEach(async () => {
  ({ dir, cleanup } = await withTempDir());
  statePath = join(dir, "data", "state.json");
  lockPath = `${statePath}.lock`;
  await mkdir(join(dir, "data"), { recursive: true });
});
afterEach(async () => {
  for (const lock of locks.splice(0)) await lock.release();
  await cleanup();
});

/** A timer the test fires by hand; it records what is running. */
function manualTimer(): LockTimer & { fire(): void; running: number; intervals: number[] } {
  const fns = new Set<() => void>();
  const timer = {
    intervals: [] as number[],
    get running() {
      return fns.size;
    },
    fire() {
      for (const fn of fns) fn();
    },
    repeat(ms: number, fn: () => void) {
      timer.intervals.push(ms);
      fns.add(fn);
      return () => fns.delete(fn);
    },
  };
  return timer;
}

async function acquire(opts: Parameters<typeof acquireLock>[1]): Promise<Lock> {
  const lock = await acquireLock(statePath, opts);
  locks.push(lock);
  return lock;
}

async function writeOtherHostLock(renewedAt: number): Promise<void> {
  const content = {
    pid: 4242,
    hostname: "rescheduled-away.example",
    startedAt: new Date(T0 - 3_600_000).toISOString(),
    renewedAt: new Date(renewedAt).toISOString(),
    procStart: "5",
    token: "feedfacecafe0000",
  };
  await writeFile(lockPath, `${JSON.stringify(content)}\n`, { mode: 0o600 });
}

const lockContent = async (): Promise<Record<string, unknown>> =>
  JSON.parse(await readFile(lockPath, "utf8")) as Record<string, unknown>;

describe("the lock's lease", () => {
  it("the lease is within the contract's 60 s and renewed several times within it", () => {
    expect(LEASE_MS).toBeLessThanOrEqual(60_000);
    expect(RENEW_EVERY_MS * 3).toBeLessThanOrEqual(LEASE_MS);
  });

  it("a holder on another host blocks while its lease is fresh and stops blocking once it stopped renewing for the lease", async () => {
    await writeOtherHostLock(T0);
    const err: unknown = await acquireLock(statePath, { now: () => T0 + LEASE_MS - 1000 }).then(
      (lock) => (locks.push(lock), null),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LockHeldError);
    // The message tells the operator that waiting is enough when that host is gone.
    expect(err instanceof Error ? err.message : "").toContain(
      `it last renewed its lease at ${new Date(T0).toISOString()}, and a start after the lease runs out (within 60 s of that) takes it over`,
    );
    const lock = await acquire({ now: () => T0 + LEASE_MS + 1000, timer: manualTimer() });
    expect(lock.holder.pid).toBe(process.pid);
    expect(await lockContent()).toMatchObject({ pid: process.pid, hostname: hostname() });
  });

  it("the holder renews renewedAt on its own timer (unref'd by default), keeping pid, startedAt and token", async () => {
    let now = T0;
    const timer = manualTimer();
    const lock = await acquire({ now: () => now, timer });
    expect(timer.intervals).toEqual([RENEW_EVERY_MS]);
    expect(await lockContent()).toMatchObject({ renewedAt: new Date(T0).toISOString() });
    now = T0 + RENEW_EVERY_MS;
    timer.fire();
    expect(await lock.renew()).toBe("renewed");
    const content = await lockContent();
    expect(content).toMatchObject({
      pid: process.pid,
      startedAt: new Date(T0).toISOString(),
      renewedAt: new Date(T0 + RENEW_EVERY_MS).toISOString(),
      token: lock.holder.token,
    });
    // Renewed, the lock still blocks another host past the first lease.
    const err: unknown = await acquireLock(statePath, {
      now: () => T0 + LEASE_MS + 1000,
      identity: { pid: 77, hostname: "other.example" },
    }).then(
      (l) => (locks.push(l), null),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LockHeldError);
    // Release removes the renewed file and stops the timer.
    await lock.release();
    expect(timer.running).toBe(0);
    expect(existsSync(lockPath)).toBe(false);
    expect(await readdir(join(dir, "data"))).toEqual([]);
  });

  it("a holder that stalled past its lease never overwrites the lock of the host that took over; it learns it lost", async () => {
    let now = T0;
    let lostCalls = 0;
    const stalled = await acquire({
      now: () => now,
      timer: manualTimer(),
      identity: { pid: 11, hostname: "node-a" },
      onLost: () => (lostCalls += 1),
    });
    now = T0 + LEASE_MS + 1;
    const successor = await acquire({
      now: () => now,
      timer: manualTimer(),
      identity: { pid: 22, hostname: "node-b" },
    });
    const before = await readFile(lockPath, "utf8");
    expect(await stalled.renew()).toBe("lost");
    expect(stalled.lost).toBe(true);
    expect(lostCalls).toBe(1);
    expect(await readFile(lockPath, "utf8")).toBe(before);
    await stalled.release();
    expect(await lockContent()).toMatchObject({ token: successor.holder.token });
  });
  it("a starter that judged the lock stale cannot take it over between the holder's check and its renewal: it finds the renewed lock live", async () => {
    let now = T0;
    let reachedCheck!: () => void;
    const atCheck = new Promise<void>((resolve) => (reachedCheck = resolve));
    let letRenewalOn!: () => void;
    const renewalOn = new Promise<void>((resolve) => (letRenewalOn = resolve));
    const holder = await acquire({
      now: () => now,
      timer: manualTimer(),
      identity: { pid: 11, hostname: "node-a" },
      step: async (point) => {
        if (point !== "renew:checked") return;
        reachedCheck();
        await renewalOn;
      },
    });
    // The holder stalled past its lease and renews just as a starter on another host judges it stale.
    now = T0 + LEASE_MS + 1;
    const renewal = holder.renew();
    await atCheck;
    const outcome: unknown = await acquireLock(statePath, {
      now: () => now,
      timer: manualTimer(),
      identity: { pid: 22, hostname: "node-b" },
      sleep: async () => {
        letRenewalOn();
        await renewal;
      },
    }).then(
      (lock) => (locks.push(lock), "won"),
      (e: unknown) => e,
    );
    letRenewalOn();
    expect(await renewal).toBe("renewed");
    expect(outcome).toBeInstanceOf(LockHeldError);
    expect(await lockContent()).toMatchObject({ token: holder.holder.token });
  });
});

describe("inspectLock (for status: read-only)", () => {
  it("says free, then who holds the lock and since when, and whether it still blocks", async () => {
    expect(await inspectLock(statePath)).toEqual({ held: false });
    await writeOtherHostLock(T0);
    expect(await inspectLock(statePath, { now: () => T0 + 5000 })).toEqual({
      held: true,
      pid: 4242,
      hostname: "rescheduled-away.example",
      since: new Date(T0 - 3_600_000).toISOString(),
      lastSeen: new Date(T0).toISOString(),
      alive: true,
    });
    expect(await inspectLock(statePath, { now: () => T0 + LEASE_MS + 1 })).toMatchObject({ alive: false });
    // Inspecting changed nothing.
    expect(await lockContent()).toMatchObject({ pid: 4242 });
  });

  it("a lock of this process is alive on this host, however old its lease", async () => {
    await acquire({ now: () => T0, timer: manualTimer() });
    expect(await inspectLock(statePath, { now: () => T0 + 10 * LEASE_MS })).toMatchObject({
      alive: true,
      pid: process.pid,
      hostname: hostname(),
    });
  });

  it("a lock file that cannot be parsed is shown as damaged, with when it was last written", async () => {
    await writeFile(lockPath, "{");
    const written = new Date("2026-03-01T09:59:00Z");
    await utimes(lockPath, written, written);
    expect(await inspectLock(statePath)).toEqual({
      held: true,
      damaged: true,
      lastSeen: written.toISOString(),
    });
  });
});

describe("temp files around the lock", () => {
  it("a failed start (disk full while writing the lock) fails with state_lock_failed and leaves no temp file", async () => {
    const diskFull = (point: string): Promise<void> => {
      if (point !== "lock:temp-written") return Promise.resolve();
      const err = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
      return Promise.reject(err);
    };
    const err: unknown = await acquireLock(statePath, { step: diskFull, timer: manualTimer() }).then(
      (l) => (locks.push(l), null),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StateError);
    if (err instanceof StateError) expect(err.code).toBe("state_lock_failed");
    expect(await readdir(join(dir, "data"))).toEqual([]);
  });

  it("acquire removes temp files of processes that are gone (over a minute old), keeps the others", async () => {
    const data = join(dir, "data");
    const deadPid = 2_147_483_000; // above any pid_max: no such process
    const oldDead = [
      `state.json.lock.${deadPid}.0123456789ab.tmp`,
      `state.json.${deadPid}.0123456789ac.tmp`,
      `state.json.lock.takeover.${deadPid}.0123456789ad.tmp`,
    ];
    const kept = [
      `state.json.lock.${deadPid}.0123456789ae.tmp`, // fresh: maybe a live process on another host
      `state.json.lock.${process.pid}.0123456789af.tmp`, // this process's own
      `other.json.${deadPid}.0123456789b0.tmp`, // not ours
    ];
    for (const name of [...oldDead, ...kept]) await writeFile(join(data, name), "{");
    const old = new Date(Date.now() - 5 * 60_000);
    for (const name of [...oldDead, kept[1], kept[2]]) if (name) await utimes(join(data, name), old, old);
    await acquire({ timer: manualTimer() });
    expect((await readdir(data)).sort()).toEqual([...kept, "state.json.lock"].sort());
  });
});

describe("a stalled holder that wakes during a takeover (contract: two processes never work on one state file)", () => {
  const takeoverGuard = (at: number): string =>
    `${JSON.stringify({ pid: 77, hostname: "other-host", startedAt: new Date(at).toISOString(), token: "starter" })}\n`;

  it("does not settle for 'busy': it waits for the takeover to finish and learns it lost the lock", async () => {
    let now = T0;
    let waits = 0;
    const lock = await acquire({
      now: () => now,
      timer: manualTimer(),
      identity: { pid: 1, hostname: "node-0" },
      sleep: async () => {
        waits += 1;
        // The starter that holds the guard finishes its takeover while the holder waits.
        if (waits === 3) {
          await writeFile(lockPath, takeoverGuard(now));
          await import("node:fs/promises").then((fs) => fs.rm(`${lockPath}.takeover`));
        }
      },
    });
    now = T0 + LEASE_MS + 1;
    await writeFile(`${lockPath}.takeover`, takeoverGuard(now));
    expect(await lock.renew()).toBe("lost");
    expect(lock.lost).toBe(true);
    expect(waits).toBe(3);
  });

  it("within its lease, a held guard is 'busy' at once: nobody can be taking a live lock over", async () => {
    let now = T0;
    let waits = 0;
    const lock = await acquire({
      now: () => now,
      timer: manualTimer(),
      identity: { pid: 1, hostname: "node-0" },
      sleep: () => {
        waits += 1;
        return Promise.resolve();
      },
    });
    now = T0 + RENEW_EVERY_MS;
    await writeFile(`${lockPath}.takeover`, takeoverGuard(now));
    expect(await lock.renew()).toBe("busy");
    expect(lock.lost).toBe(false);
    expect(waits).toBe(0);
  });
});

describe("confirm(): a write first learns whether this process still holds the lock", () => {
  it("costs nothing while renewals run on time", async () => {
    let now = T0;
    const lock = await acquire({
      now: () => now,
      timer: manualTimer(),
      identity: { pid: 1, hostname: "node-0" },
    });
    const before = await readFile(lockPath, "utf8");
    now = T0 + RENEW_EVERY_MS;
    await lock.confirm();
    expect(await readFile(lockPath, "utf8")).toBe(before);
  });

  it("after a stall nobody used, renews before the write", async () => {
    let now = T0;
    const lock = await acquire({
      now: () => now,
      timer: manualTimer(),
      identity: { pid: 1, hostname: "node-0" },
    });
    now = T0 + LEASE_MS + 5_000;
    await lock.confirm();
    expect(await lockContent()).toMatchObject({ renewedAt: new Date(now).toISOString() });
    expect(lock.lost).toBe(false);
  });

  it("after a stall during which another host took the lock over, refuses the write", async () => {
    let now = T0;
    const lock = await acquire({
      now: () => now,
      timer: manualTimer(),
      identity: { pid: 1, hostname: "node-0" },
    });
    now = T0 + LEASE_MS + 5_000;
    await writeOtherHostLock(now);
    await expect(lock.confirm()).rejects.toMatchObject({ code: "state_lock_lost" });
    expect(lock.lost).toBe(true);
  });
});
