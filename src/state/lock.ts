import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname } from "node:path";
import { realSleep, type Sleep } from "../shared/clock.js";
import { LockHeldError, StateError, errnoCode } from "./errors.js";
import {
  createExclusive,
  readLockFile,
  removeIfSame,
  removeIfSameSync,
  removeIfUnchangedRacy,
  type LockFileContent,
  type LockInfo,
} from "./lock-file.js";
import { ownProcStart, pidExists, readProcStat } from "./proc-stat.js";

/** The single-instance lock on a state file (contract: "Two processes never work on one state file"). */
export interface Lock {
  /** The lock file: `<statePath>.lock`. */
  readonly path: string;
  readonly holder: LockInfo;
  /** Removes the lock file if it still holds this lock. Idempotent. */
  release(): Promise<void>;
}

export interface AcquireLockOptions {
  now?: () => number;
  /** Waits while another starter is taking over a stale lock (default: real timers). */
  sleep?: Sleep;
}

/** Bounds the acquire loop: each turn either wins, fails, or sees the lock file change. */
const MAX_ATTEMPTS = 50;
/** How long to wait for another starter that is in the middle of a takeover (microseconds of work). */
const GUARD_WAIT_MS = 20;
/** A lock file that cannot be parsed is treated as stale once it is this old (it might be mid-write). */
const DAMAGED_GRACE_MS = 10_000;

interface Self {
  pid: number;
  hostname: string;
}

type Verdict = { kind: "live"; sameHost: boolean; info: LockInfo } | { kind: "damaged" } | { kind: "stale" };

/**
 * A holder is alive when it is on this host, its pid exists and is not a zombie, and (where its
 * start time was recorded) the process with that pid started at the same moment. The start time
 * is what makes a lock left by a SIGKILLed process stale even when its pid was reused since —
 * pid 1 in a restarted container, or this very process.
 */
async function judge(content: LockFileContent, self: Self, now: number): Promise<Verdict> {
  const info = content.info;
  if (info === null)
    return now - content.mtimeMs < DAMAGED_GRACE_MS ? { kind: "damaged" } : { kind: "stale" };
  if (info.hostname !== self.hostname) return { kind: "live", sameHost: false, info };
  if (!pidExists(info.pid)) return { kind: "stale" };
  const stat = await readProcStat(info.pid);
  if (stat === "gone") return { kind: "stale" };
  // Cannot read /proc: the pid exists, so assume it is the holder.
  if (stat === "unknown") return { kind: "live", sameHost: true, info };
  if (stat.state === "Z" || stat.state === "X") return { kind: "stale" };
  if (info.procStart != null && info.procStart !== stat.startTime) return { kind: "stale" };
  return { kind: "live", sameHost: true, info };
}

/**
 * Removes a stale lock file under a takeover guard (`<lock>.takeover`, created exclusively), so
 * that of several starters that judged the same file stale, only one removes it, and none removes
 * a fresh lock that another starter created meanwhile. "busy": another starter holds the guard.
 */
async function removeStale(
  lockPath: string,
  stale: LockFileContent,
  guardText: string,
  self: Self,
  now: number,
): Promise<"done" | "busy"> {
  const guardPath = `${lockPath}.takeover`;
  if (!(await createExclusive(guardPath, guardText))) {
    const guard = await readLockFile(guardPath);
    if (guard === null) return "done";
    if ((await judge(guard, self, now)).kind !== "stale") return "busy";
    // Its holder died within the takeover itself: move the guard aside, checking it is that one.
    await removeIfUnchangedRacy(guardPath, guard.text);
    return "done";
  }
  try {
    // Under the guard nobody else removes the lock file, so it is still the one judged stale
    // unless it was released and re-created, which removeIfSame sees by its content.
    await removeIfSame(lockPath, stale.text);
  } finally {
    await removeIfSame(guardPath, guardText);
  }
  return "done";
}

class HeldLock implements Lock {
  private released = false;
  private readonly onExit: () => void;

  constructor(
    readonly path: string,
    readonly holder: LockInfo,
    private readonly text: string,
  ) {
    this.onExit = () => removeIfSameSync(path, text);
    process.on("exit", this.onExit);
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    process.removeListener("exit", this.onExit);
    await removeIfSame(this.path, this.text);
  }
}

/**
 * Takes the single-instance lock of the state file at `statePath`: the file `<statePath>.lock`,
 * holding `{ pid, hostname, startedAt, procStart }`. A live holder gives LockHeldError; a stale
 * lock (its process died, even by SIGKILL) is taken over.
 */
export async function acquireLock(statePath: string, opts: AcquireLockOptions = {}): Promise<Lock> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? realSleep;
  const lockPath = `${statePath}.lock`;
  const self: Self = { pid: process.pid, hostname: hostname() };
  const info: LockInfo = {
    pid: self.pid,
    hostname: self.hostname,
    startedAt: new Date(now()).toISOString(),
    procStart: ownProcStart(),
    token: randomBytes(8).toString("hex"),
  };
  const text = `${JSON.stringify(info)}\n`;
  try {
    await mkdir(dirname(lockPath), { recursive: true, mode: 0o700 });
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      if (await createExclusive(lockPath, text)) return new HeldLock(lockPath, info, text);
      const existing = await readLockFile(lockPath);
      if (existing === null) continue; // released meanwhile: try again
      const verdict = await judge(existing, self, now());
      if (verdict.kind === "live")
        throw new LockHeldError(statePath, lockPath, verdict.info, verdict.sameHost);
      if (verdict.kind === "damaged") {
        throw new StateError(
          "state_locked",
          `lock file ${lockPath} is being written or is damaged; if no threatbridge uses ${statePath}, delete it`,
          { file: lockPath },
        );
      }
      if ((await removeStale(lockPath, existing, text, self, now())) === "busy") await sleep(GUARD_WAIT_MS);
    }
  } catch (err) {
    if (err instanceof StateError) throw err;
    const detail = err instanceof Error ? err.message : String(err);
    throw new StateError(
      "state_lock_failed",
      `cannot take the lock ${lockPath} (${detail}${errnoCode(err) === "EACCES" ? "; check the directory's permissions" : ""})`,
      { cause: err, file: lockPath },
    );
  }
  throw new StateError(
    "state_lock_failed",
    `cannot take the lock ${lockPath}: it kept changing while other processes started; if none runs, delete ${lockPath} and ${lockPath}.takeover`,
    { file: lockPath },
  );
}
