import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { hostname } from "node:os";
import { basename, dirname } from "node:path";
import { realSleep, type Sleep } from "../shared/clock.js";
import { removeStaleTemps } from "./atomic-write.js";
import { LockHeldError, StateError, errnoCode } from "./errors.js";
import {
  createExclusive,
  noStep,
  readLockFile,
  removeIfSame,
  removeIfUnchangedRacy,
  type LockInfo,
  type LockStep,
} from "./lock-file.js";
import { judge, RENEW_EVERY_MS, type LockIdentity } from "./lock-judge.js";
import { HeldLock, systemLockTimer, type LockTimer, type RenewResult } from "./lock-lease.js";
import { ownProcStart, pidExists } from "./proc-stat.js";

/** The single-instance lock on a state file (contract: "Two processes never work on one state file"). */
export interface Lock {
  /** The lock file: `<statePath>.lock`. */
  readonly path: string;
  readonly holder: LockInfo;
  /** True once a renewal found the lock taken over (this process stalled past its lease). */
  readonly lost: boolean;
  /** Renews the lease now (the lock does so by itself every 10 s until released). */
  renew(): Promise<RenewResult>;
  /**
   * Before a write: resolves when this process surely still holds the lock. Free while the lease
   * is being renewed on time; after a stall (the renewals did not run), renews first, and rejects
   * with a StateError when the lock was taken over meanwhile or that cannot be known.
   */
  confirm(): Promise<void>;
  /** Stops the renewal and removes the lock file if it still holds this lock. Idempotent. */
  release(): Promise<void>;
}

interface AcquireLockOptions {
  now?: () => number;
  /** Waits while another starter is taking over a stale lock (default: real timers). */
  sleep?: Sleep;
  /** Runs the lease renewal (default: an unref'd setInterval, so it never keeps the process up). */
  timer?: LockTimer;
  /** Called once when a renewal finds that another process took the lock over. */
  onLost?: () => void;
  /** Named points between file operations, for fault injection and interleaving tests. */
  step?: LockStep;
  /** Who takes the lock (default: this process on this host); tests simulate several starters. */
  identity?: LockIdentity & { procStart?: string | null };
}

/** Bounds the acquire loop: each turn either wins, fails, or sees the lock file change. */
const MAX_ATTEMPTS = 50;
/** How long to wait for another starter that is in the middle of a takeover (microseconds of work). */
const GUARD_WAIT_MS = 20;

/**
 * Removes a stale lock file under a takeover guard (`<lock>.takeover`, created exclusively), so
 * that of several starters that judged the same file stale, only one removes it, and none removes
 * a fresh lock that another starter created (or a renewal its holder wrote) meanwhile — holders
 * renew under the same guard. "busy": another process holds the guard.
 */
async function removeStale(
  lockPath: string,
  staleText: string,
  guardText: string,
  self: LockIdentity,
  now: number,
  step: LockStep,
): Promise<"done" | "busy"> {
  const guardPath = `${lockPath}.takeover`;
  if (!(await createExclusive(guardPath, guardText, step))) {
    await step("takeover:guard-busy");
    const guard = await readLockFile(guardPath);
    if (guard === null) return "done";
    if ((await judge(guard, self, now)).kind !== "stale") return "busy";
    // Its holder died within the takeover itself: move the guard aside, checking it is that one.
    await removeIfUnchangedRacy(guardPath, guard.text);
    return "done";
  }
  try {
    await step("takeover:guarded");
    // Under the guard nobody else removes or renews the lock file, so it is still the one judged
    // stale unless it was released and re-created, which removeIfSame sees by its content.
    await removeIfSame(lockPath, staleText);
  } finally {
    await removeIfSame(guardPath, guardText);
  }
  return "done";
}

/**
 * Takes the single-instance lock of the state file at `statePath`: the file `<statePath>.lock`,
 * holding `{ pid, hostname, startedAt, procStart, token, renewedAt }`. A live holder gives
 * LockHeldError; a stale lock (its process died, even by SIGKILL; or, on another host, its lease
 * ran out) is taken over. The returned lock renews its lease until released.
 */
export async function acquireLock(statePath: string, opts: AcquireLockOptions = {}): Promise<Lock> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? realSleep;
  const step = opts.step ?? noStep;
  const lockPath = `${statePath}.lock`;
  const self: LockIdentity = opts.identity ?? { pid: process.pid, hostname: hostname() };
  const startedAt = new Date(now()).toISOString();
  const info: LockInfo = {
    pid: self.pid,
    hostname: self.hostname,
    startedAt,
    procStart: opts.identity ? (opts.identity.procStart ?? null) : ownProcStart(),
    token: randomBytes(8).toString("hex"),
    renewedAt: startedAt,
  };
  const text = `${JSON.stringify(info)}\n`;
  try {
    await mkdir(dirname(lockPath), { recursive: true, mode: 0o700 });
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      await step("acquire:create");
      if (await createExclusive(lockPath, text, step)) {
        await cleanTemps(statePath, now());
        return new HeldLock({
          path: lockPath,
          info,
          text,
          self,
          now,
          step,
          timer: opts.timer ?? systemLockTimer,
          renewEveryMs: RENEW_EVERY_MS,
          onLost: opts.onLost,
          sleep,
        });
      }
      await step("acquire:read");
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
      if ((await removeStale(lockPath, existing.text, text, self, now(), step)) === "busy")
        await sleep(GUARD_WAIT_MS);
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

/** The new holder removes what failed or killed starters left (best effort; see removeStaleTemps). */
async function cleanTemps(statePath: string, now: number): Promise<void> {
  const name = basename(statePath);
  await removeStaleTemps(dirname(statePath), [name, `${name}.lock`, `${name}.lock.takeover`], {
    now,
    pidRuns: pidExists,
  }).catch(() => []);
}
