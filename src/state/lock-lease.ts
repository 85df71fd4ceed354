import {
  createExclusive,
  readLockFile,
  removeIfSame,
  removeIfSameSync,
  removeIfUnchangedRacy,
  replaceFile,
  type LockInfo,
  type LockStep,
} from "./lock-file.js";
import { realSleep, type Sleep } from "../shared/clock.js";
import { StateError } from "./errors.js";
import { judge, LEASE_MS, type LockIdentity } from "./lock-judge.js";

/** Runs `fn` every `ms` until the returned function is called. */
export interface LockTimer {
  repeat(ms: number, fn: () => void): () => void;
}

/** setInterval, unref'd: a lease alone never keeps the process alive. */
export const systemLockTimer: LockTimer = {
  repeat(ms, fn) {
    const handle = setInterval(fn, ms);
    handle.unref();
    return () => clearInterval(handle);
  },
};

/**
 * "renewed"; "busy": another process holds the takeover guard (try at the next tick); "lost": the
 * lock file is no longer this lock's (another process judged it stale and took it over);
 * "released": nothing to renew.
 */
export type RenewResult = "renewed" | "busy" | "lost" | "released";

interface HeldLockInit {
  path: string;
  info: LockInfo;
  text: string;
  self: LockIdentity;
  now: () => number;
  step: LockStep;
  timer: LockTimer;
  renewEveryMs: number;
  onLost: (() => void) | undefined;
  /** Waits between two tries while a takeover holds the guard (default: real timers). */
  sleep?: Sleep;
}

/**
 * A holder whose own lease ran out (it stalled) and finds the takeover guard held does not stop at
 * "busy": a starter is taking the lock over at that moment, and until the holder knows whether it
 * did, it must not go on believing it holds the lock. It tries again this many times, this far
 * apart (a takeover is a few file operations), before it answers "busy".
 */
const STALLED_BUSY_TRIES = 50;
const STALLED_BUSY_WAIT_MS = 20;

/** A held lock: renews its lease on a timer, removes its file on release or process exit. */
export class HeldLock {
  readonly path: string;
  readonly holder: LockInfo;
  private text: string;
  private released = false;
  private lostFlag = false;
  private inFlight: Promise<RenewResult> | null = null;
  /** When the lock file last got this holder's sign of life (its acquisition, then each renewal). */
  private renewedAtMs: number;
  private readonly stopTimer: () => void;
  private readonly onExit: () => void;

  constructor(private readonly init: HeldLockInit) {
    this.path = init.path;
    this.holder = init.info;
    this.text = init.text;
    this.renewedAtMs = Date.parse(init.info.renewedAt ?? init.info.startedAt);
    // Reads the current text at exit time: the lease renewal changes it.
    this.onExit = () => removeIfSameSync(this.path, this.text);
    process.on("exit", this.onExit);
    this.stopTimer = init.timer.repeat(init.renewEveryMs, () => {
      // A failed renewal (an I/O error) is retried at the next tick; the lease has room for a few.
      this.renew().catch(() => undefined);
    });
  }

  get lost(): boolean {
    return this.lostFlag;
  }

  /** One renewal at a time: a tick that comes while one runs shares its result. */
  renew(): Promise<RenewResult> {
    if (this.released || this.lostFlag) return Promise.resolve(this.lostFlag ? "lost" : "released");
    this.inFlight ??= this.renewOnce().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  /**
   * Rewrites the lock file with a fresh renewedAt, under the takeover guard: a starter removes a
   * stale lock only while holding that guard, so between the check "the file is still mine" and
   * the atomic replace nobody can remove it, and the file exists throughout, so nobody can create
   * it. A holder that stalled past its lease therefore never overwrites its successor's lock.
   */
  private async renewOnce(): Promise<RenewResult> {
    const sleep = this.init.sleep ?? realSleep;
    for (let tries = 1; ; tries++) {
      const result = await this.tryRenew();
      const leaseRanOut = this.init.now() - this.renewedAtMs > LEASE_MS;
      if (result !== "busy" || !leaseRanOut || tries >= STALLED_BUSY_TRIES) return result;
      await this.init.step("renew:busy-stalled");
      await sleep(STALLED_BUSY_WAIT_MS);
    }
  }

  private async tryRenew(): Promise<RenewResult> {
    const { step, self, now } = this.init;
    const renewedAt = now();
    const next = `${JSON.stringify({ ...this.holder, renewedAt: new Date(renewedAt).toISOString() })}\n`;
    const guardPath = `${this.path}.takeover`;
    await step("renew:guard");
    if (!(await createExclusive(guardPath, next, step))) {
      const guard = await readLockFile(guardPath);
      if (guard !== null && (await judge(guard, self, now())).kind === "stale")
        await removeIfUnchangedRacy(guardPath, guard.text);
      return "busy";
    }
    try {
      await step("renew:guarded");
      const current = await readLockFile(this.path);
      if (current === null || current.text !== this.text) {
        this.markLost();
        return "lost";
      }
      if (this.released) return "released";
      await replaceFile(this.path, next);
      this.text = next;
      this.renewedAtMs = renewedAt;
      return "renewed";
    } finally {
      await removeIfSame(guardPath, next);
    }
  }

  async confirm(): Promise<void> {
    if (this.released) return;
    if (!this.lostFlag && this.init.now() - this.renewedAtMs <= this.init.renewEveryMs * 2) return;
    const result = this.lostFlag ? "lost" : await this.renew();
    if (result === "renewed" || result === "released") return;
    throw new StateError(
      "state_lock_lost",
      result === "lost"
        ? `the lock ${this.path} was taken over by another process while this one stalled; it writes nothing more`
        : `the lock ${this.path} is being taken over by another process; this one stalled and writes nothing more`,
      { file: this.path },
    );
  }

  private markLost(): void {
    if (this.lostFlag) return;
    this.lostFlag = true;
    this.stopTimer();
    process.removeListener("exit", this.onExit);
    this.init.onLost?.();
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    this.stopTimer();
    process.removeListener("exit", this.onExit);
    await this.inFlight?.catch(() => undefined);
    await removeIfSame(this.path, this.text);
  }
}
