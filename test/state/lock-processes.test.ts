import { existsSync } from "node:fs";
import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { LEASE_MS, LockHeldError, acquireLock, type Lock } from "../../src/state/index.js";
import { withTempDir } from "./helpers.js";
import { buildLockDriver, startLockChild, type LockChild } from "./lock-child.js";

/**
 * Contract, "Command line": two processes never work on one state file; a lock left by a process
 * that died (even by SIGKILL) does not block the next start, and a holder on another host that
 * stopped renewing stops blocking within 60 s of its last renewal. Real separate processes here.
 */

const hasProcfs = existsSync("/proc/self/stat");

let root: { dir: string; cleanup: () => Promise<void> };
let driver: string;
let statePath: string;
let round = 0;
const children: LockChild[] = [];
const locks: Lock[] = [];

beforeAll(async () => {
  root = await withTempDir();
  driver = await buildLockDriver(join(root.dir, "build"));
});
afterAll(async () => {
  await root.cleanup();
});
afterEach(async () => {
  for (const lock of locks.splice(0)) await lock.release();
  await Promise.all(children.splice(0).map((child) => stop(child)));
});

function freshStatePath(): string {
  round += 1;
  statePath = join(root.dir, `case-${round}`, "state.json");
  return statePath;
}

function start(): LockChild {
  const child = startLockChild(driver, statePath);
  children.push(child);
  return child;
}

function stop(child: LockChild, signal?: NodeJS.Signals): Promise<void> {
  const proc = child.process;
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  const done = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  if (signal === undefined) proc.stdin?.end();
  else proc.kill(signal);
  return done;
}

describe.skipIf(!hasProcfs)("the lock across processes", () => {
  it("a lock held by another process blocks; after that process is SIGKILLed the next start takes it over", async () => {
    freshStatePath();
    const holder = start();
    expect(await holder.send("acquire")).toBe("won");
    const err: unknown = await acquireLock(statePath).then(
      (lock) => (locks.push(lock), null),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LockHeldError);
    if (err instanceof LockHeldError) expect(err.pid).toBe(holder.process.pid);

    await stop(holder, "SIGKILL");
    // SIGKILL runs no exit handler: the lock file is left behind.
    expect(existsSync(`${statePath}.lock`)).toBe(true);
    const lock = await acquireLock(statePath);
    locks.push(lock);
    expect(JSON.parse(await readFile(`${statePath}.lock`, "utf8"))).toMatchObject({ pid: process.pid });
  });

  it("a process that exits normally without releasing leaves no lock file (exit handler)", async () => {
    freshStatePath();
    const holder = start();
    expect(await holder.send("acquire")).toBe("won");
    expect(existsSync(`${statePath}.lock`)).toBe(true);
    await stop(holder);
    expect(existsSync(`${statePath}.lock`)).toBe(false);
  });

  it("starters in separate processes racing for one stale lock: exactly one wins each time", async () => {
    freshStatePath();
    const racers = [start(), start(), start(), start()];
    await mkdir(join(root.dir, `case-${round}`), { recursive: true });
    for (let turn = 0; turn < 15; turn++) {
      // Stale: this test process's pid with a start time it never had.
      const stale = {
        pid: process.pid,
        hostname: hostname(),
        startedAt: "2026-01-01T00:00:00Z",
        procStart: "1",
      };
      await writeFile(`${statePath}.lock`, JSON.stringify(stale), { mode: 0o600 });
      const answers = await Promise.all(racers.map((racer) => racer.send("acquire")));
      expect(answers.filter((a) => a === "won")).toHaveLength(1);
      expect(answers.filter((a) => a === "lost state_locked")).toHaveLength(racers.length - 1);
      const winner = racers[answers.indexOf("won")];
      expect(JSON.parse(await readFile(`${statePath}.lock`, "utf8"))).toMatchObject({
        pid: winner?.process.pid,
      });
      expect(await winner?.send("release")).toBe("released");
      expect(existsSync(`${statePath}.lock`)).toBe(false);
    }
  });

  it("eight processes racing for a lock whose holder on another host stopped renewing (lease over): exactly one wins each time", async () => {
    freshStatePath();
    const racers = Array.from({ length: 8 }, () => start());
    await mkdir(join(root.dir, `case-${round}`), { recursive: true });
    for (let turn = 0; turn < 10; turn++) {
      const gone = {
        pid: 1,
        hostname: "node-that-was-lost.example",
        startedAt: new Date(Date.now() - 3_600_000).toISOString(),
        renewedAt: new Date(Date.now() - LEASE_MS - 5_000).toISOString(),
        procStart: "1",
      };
      await writeFile(`${statePath}.lock`, JSON.stringify(gone), { mode: 0o600 });
      const answers = await Promise.all(racers.map((racer) => racer.send("acquire")));
      expect(answers.filter((a) => a === "won")).toHaveLength(1);
      expect(answers.filter((a) => a === "lost state_locked")).toHaveLength(racers.length - 1);
      const winner = racers[answers.indexOf("won")];
      expect(JSON.parse(await readFile(`${statePath}.lock`, "utf8"))).toMatchObject({
        pid: winner?.process.pid,
      });
      expect(await winner?.send("release")).toBe("released");
      expect(await readdir(join(root.dir, `case-${round}`))).toEqual([]);
    }
  });
});
