import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, readdir, stat, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LockHeldError, StateError, acquireLock, type Lock } from "../../src/state/index.js";
import { withTempDir } from "./helpers.js";

const hasProcfs = existsSync("/proc/self/stat");

let dir: string;
let cleanup: () => Promise<void>;
let statePath: string;
let lockPath: string;
const locks: Lock[] = [];
const children: ChildProcess[] = [];

beforeEach(async () => {
  ({ dir, cleanup } = await withTempDir());
  statePath = join(dir, "data", "state.json");
  lockPath = `${statePath}.lock`;
});
afterEach(async () => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const lock of locks.splice(0)) await lock.release();
  await cleanup();
});

async function acquire(opts?: Parameters<typeof acquireLock>[1]): Promise<Lock> {
  const lock = await acquireLock(statePath, opts);
  locks.push(lock);
  return lock;
}

/** The error of an acquire expected to fail; a lock taken anyway is released after the test. */
async function rejection(promise: Promise<Lock>): Promise<unknown> {
  return promise.then(
    (lock) => {
      locks.push(lock);
      throw new Error("expected the lock to be refused");
    },
    (err: unknown) => err,
  );
}

/** Start time (field 22 of /proc/<pid>/stat) of a process, as the lock records it. */
async function procStartOf(pid: number | "self"): Promise<string> {
  const text = await readFile(`/proc/${pid}/stat`, "utf8");
  const field = text
    .slice(text.lastIndexOf(")") + 1)
    .trim()
    .split(/\s+/)[19];
  if (field === undefined) throw new Error("no start time");
  return field;
}

async function writeLock(content: Record<string, unknown>): Promise<string> {
  await mkdir(join(dir, "data"), { recursive: true });
  const text = `${JSON.stringify(content)}\n`;
  await writeFile(lockPath, text, { mode: 0o600 });
  return text;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/** Waiting for a starter in the middle of a takeover: a millisecond is plenty in one process. */
const quickSleep = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));

describe("acquireLock", () => {
  it("creates <state>.lock (0600, parent dir created) holding pid, hostname, startedAt and procStart", async () => {
    const lock = await acquire({ now: () => Date.parse("2026-03-01T10:00:00Z") });
    expect(lock.path).toBe(lockPath);
    expect((await stat(lockPath)).mode & 0o777).toBe(0o600);
    const content: unknown = JSON.parse(await readFile(lockPath, "utf8"));
    expect(content).toMatchObject({
      pid: process.pid,
      hostname: hostname(),
      startedAt: "2026-03-01T10:00:00.000Z",
    });
    if (hasProcfs) expect(content).toMatchObject({ procStart: await procStartOf("self") });
    // No temp file is left next to it.
    expect(await readdir(join(dir, "data"))).toEqual(["state.json.lock"]);
  });

  it("a second acquire while held gives LockHeldError naming this pid and telling to stop it", async () => {
    await acquire({ now: () => Date.parse("2026-03-01T10:00:00Z") });
    const err = await rejection(acquireLock(statePath));
    expect(err).toBeInstanceOf(LockHeldError);
    if (!(err instanceof LockHeldError)) return;
    expect(err.code).toBe("state_locked");
    expect(err.pid).toBe(process.pid);
    expect(err.hostname).toBe(hostname());
    expect(err.startedAt).toBe("2026-03-01T10:00:00.000Z");
    expect(err.message).toBe(
      `state file ${statePath} is in use by pid ${process.pid} on host ${hostname()} since 2026-03-01T10:00:00.000Z; stop that process first`,
    );
  });

  it("release removes the lock file, after which the lock can be taken again", async () => {
    const lock = await acquire();
    await lock.release();
    expect(existsSync(lockPath)).toBe(false);
    await acquire();
    expect(existsSync(lockPath)).toBe(true);
  });

  it("release removes only its own lock, never one that replaced it", async () => {
    const lock = await acquire();
    const other = await writeLock({ pid: 1, hostname: "elsewhere", startedAt: "2026-01-01T00:00:00Z" });
    await lock.release();
    expect(await readFile(lockPath, "utf8")).toBe(other);
  });

  it("registers a process exit handler per lock and removes it on release", async () => {
    const before = process.listenerCount("exit");
    const lock = await acquire();
    expect(process.listenerCount("exit")).toBe(before + 1);
    await lock.release();
    await lock.release();
    expect(process.listenerCount("exit")).toBe(before);
  });

  it("a lock left by a process that has exited is taken over", async () => {
    const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
    children.push(child);
    await exited(child);
    await writeLock({
      pid: child.pid,
      hostname: hostname(),
      startedAt: "2026-01-01T00:00:00Z",
      procStart: "1",
    });
    const lock = await acquire();
    expect(lock.holder.pid).toBe(process.pid);
  });

  it.skipIf(!hasProcfs)(
    "a lock with this process's pid but another start time is stale (pid reused after SIGKILL)",
    async () => {
      await writeLock({
        pid: process.pid,
        hostname: hostname(),
        startedAt: "2026-01-01T00:00:00Z",
        procStart: "1",
      });
      const lock = await acquire();
      expect(lock.holder.procStart).toBe(await procStartOf("self"));
    },
  );

  it.skipIf(!hasProcfs)(
    "a lock whose holder is a zombie (killed, not yet reaped by its parent) is stale",
    async () => {
      // sh starts a short-lived child, then becomes `sleep`, which never reaps it: a zombie whose
      // pid still answers kill(pid, 0). The child outlives the exec by a moment: one that ended
      // while sh was still sh could be reaped by sh, and its pid would be gone, not a zombie.
      const parent = spawn("sh", ["-c", "sleep 0.3 & echo $!; exec sleep 30"], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      children.push(parent);
      const zombiePid = await new Promise<number>((resolve, reject) => {
        parent.stdout?.once("data", (chunk: Buffer) => resolve(Number.parseInt(chunk.toString(), 10)));
        parent.once("exit", () => reject(new Error("sh exited early")));
      });
      let state = "";
      for (let i = 0; i < 200 && state !== "Z"; i++) {
        const text = await readFile(`/proc/${zombiePid}/stat`, "utf8");
        state =
          text
            .slice(text.lastIndexOf(")") + 1)
            .trim()
            .split(/\s+/)[0] ?? "";
        if (state !== "Z") await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(state).toBe("Z");
      const procStart = await procStartOf(zombiePid);
      await writeLock({ pid: zombiePid, hostname: hostname(), startedAt: "2026-01-01T00:00:00Z", procStart });
      const lock = await acquire();
      expect(lock.holder.pid).toBe(process.pid);
    },
  );

  it.skipIf(!hasProcfs)("a lock with a live pid and its matching start time blocks", async () => {
    await writeLock({
      pid: process.pid,
      hostname: hostname(),
      startedAt: "2026-01-01T00:00:00Z",
      procStart: await procStartOf("self"),
    });
    const err = await rejection(acquireLock(statePath));
    expect(err).toBeInstanceOf(LockHeldError);
  });

  it("a lock with a live pid and no start time recorded blocks", async () => {
    await writeLock({ pid: process.pid, hostname: hostname(), startedAt: "2026-01-01T00:00:00Z" });
    expect(await rejection(acquireLock(statePath))).toBeInstanceOf(LockHeldError);
  });

  it("a lock from another host blocks while its lease is fresh, and the message says to delete the lock file if that host is gone", async () => {
    await writeLock({
      pid: 4242,
      hostname: "other-host.example",
      startedAt: "2026-01-01T00:00:00Z",
      renewedAt: "2026-03-01T10:00:00Z",
      procStart: "5",
    });
    const err = await rejection(acquireLock(statePath, { now: () => Date.parse("2026-03-01T10:00:30Z") }));
    expect(err).toBeInstanceOf(LockHeldError);
    if (!(err instanceof LockHeldError)) return;
    expect(err.hostname).toBe("other-host.example");
    expect(err.message).toContain("pid 4242 on host other-host.example");
    expect(err.message).toContain(`delete ${lockPath} if host other-host.example is gone`);
  });

  it("a damaged lock file blocks while fresh (it may be mid-write) and is taken over once old", async () => {
    await writeLock({});
    await writeFile(lockPath, "");
    const written = (await stat(lockPath)).mtimeMs;
    const err = await rejection(acquireLock(statePath, { now: () => written + 1000 }));
    expect(err).toBeInstanceOf(StateError);
    if (err instanceof StateError) expect(err.code).toBe("state_locked");
    const lock = await acquire({ now: () => written + 60_000 });
    expect(lock.holder.pid).toBe(process.pid);
  });

  it.skipIf(!hasProcfs)("two starters racing for one stale lock: exactly one wins", async () => {
    for (let round = 0; round < 20; round++) {
      await writeLock({
        pid: process.pid,
        hostname: hostname(),
        startedAt: "2026-01-01T00:00:00Z",
        procStart: "1",
      });
      const starters = [1, 2, 3].map(() => acquireLock(statePath, { sleep: quickSleep }));
      const results = await Promise.allSettled(starters);
      const won = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
      const lost = results.flatMap((r) => (r.status === "rejected" ? [r.reason] : []));
      expect(won).toHaveLength(1);
      for (const reason of lost) expect(reason).toBeInstanceOf(LockHeldError);
      const winner = won[0];
      if (winner === undefined) return;
      const content: unknown = JSON.parse(await readFile(lockPath, "utf8"));
      expect(content).toMatchObject({ token: winner.holder.token });
      await winner.release();
      expect(await readdir(join(dir, "data"))).toEqual([]);
    }
  });
});
