import { randomBytes } from "node:crypto";
import { readFileSync, unlinkSync } from "node:fs";
import { link, mkdir, open, rename, rm, unlink, writeFile } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { realSleep, type Sleep } from "../shared/clock.js";
import { removeStaleTemps, tempPathFor } from "./atomic-write.js";
import { StateError, errnoCode } from "./errors.js";
import { judge, LEASE_MS, LockHeldError, ownProcStart, pidExists, readLock } from "./lock-judge.js";
import { readText, RENEW_EVERY_MS, thisProcess, type LockIdentity, type LockInfo } from "./lock-judge.js";

/**
 * The single-instance lock on a state file (contract: "Two processes never work on one state
 * file"): `<statePath>.lock`, created exclusively, holding LockInfo. A live holder blocks a start,
 * a stale one (lock-judge.ts) is taken over, and the holder renews its lease every RENEW_EVERY_MS.
 *
 * Removing a stale lock and renewing one both happen under the guard `<lock>.takeover`, created
 * exclusively: so of several starters that judged one lock stale only one removes it, none
 * removes a lock created meanwhile, and a holder that stalled past its lease never overwrites its
 * successor's lock (it learns that it lost).
 */

/** "busy": another process holds the guard (try again); "lost": another process took the lock over. */
export type RenewResult = "renewed" | "busy" | "lost" | "released";
/** Runs `fn` every `ms` until the returned function is called. */
export type LockTimer = { repeat(ms: number, fn: () => void): () => void };
/** A named point between two file operations: tests inject faults or interleave racers there. */
export type LockStep = (point: string) => Promise<void>;

interface AcquireLockOptions {
  now?: () => number;
  /** Waits while another process holds the guard (default: real timers). */
  sleep?: Sleep;
  /** Runs the renewal (default: an unref'd setInterval, which never keeps the process up). */
  timer?: LockTimer;
  /** Called once when a renewal finds that another process took the lock over. */
  onLost?: () => void;
  step?: LockStep;
  /** Who takes the lock (default: this process on this host); tests simulate several starters. */
  identity?: LockIdentity & { procStart?: string | null };
}

/** The lock file and how the starter and then the holder act (`pause`: a wait for the guard's holder). */
type Site = { path: string; self: LockIdentity; now: () => number; step: LockStep; pause(): Promise<void> };

/** Bounds the acquire loop (each turn wins, fails, or sees the lock change) and a stalled holder's waits. */
const MAX_TRIES = 50;
const text = (info: LockInfo): string => `${JSON.stringify(info)}\n`;

/**
 * Creates `path` holding `content` unless it exists; true when this call created it. The content
 * goes to a temp file hard-linked into place, so a reader never finds the lock half-written; a
 * file system without hard links gets open(wx) and a write.
 */
async function createExclusive(path: string, content: string, step: LockStep): Promise<boolean> {
  const tmp = tempPathFor(path);
  try {
    await writeFile(tmp, content, { flag: "wx", mode: 0o600 });
    await step("lock:temp-written");
    await link(tmp, path);
    return true;
  } catch (err) {
    const code = errnoCode(err) ?? "";
    if (code === "EEXIST") return false;
    if (!["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV"].includes(code)) throw err;
    const file = await open(path, "wx", 0o600).catch((e: unknown) =>
      errnoCode(e) === "EEXIST" ? null : Promise.reject(e),
    );
    if (file === null) return false;
    await file.writeFile(content).finally(() => file.close());
    return true;
  } finally {
    await rm(tmp, { force: true });
  }
}

/** Removes `path` if it holds `content`; only the guard's or the lock's holder calls it, so nobody replaces it in between. */
async function removeIfSame(path: string, content: string): Promise<void> {
  if ((await readText(path)) === content) await unlink(path).catch(() => undefined);
}

/**
 * Runs `fn` holding the guard, which holds `mine` (the caller's lock info, judged like a lock);
 * "busy" while another process holds it. A guard whose holder died is removed for the next try.
 */
async function guarded<T>(site: Site, mine: string, fn: () => Promise<T>): Promise<T | "busy"> {
  const guardPath = `${site.path}.takeover`;
  if (!(await createExclusive(guardPath, mine, site.step))) {
    await site.step("guard:busy");
    const guard = await readLock(guardPath);
    if (guard && (await judge(guard, site.self, site.now())) === "stale")
      await removeIfSame(guardPath, guard.text);
    return "busy";
  }
  try {
    await site.step("guard:held");
    return await fn();
  } finally {
    await removeIfSame(guardPath, mine);
  }
}

/** Takes the lock of the state file at `statePath`: LockHeldError while a live process holds it. */
export async function acquireLock(statePath: string, opts: AcquireLockOptions = {}): Promise<Lock> {
  const { now = Date.now, step = () => Promise.resolve(), sleep = realSleep } = opts;
  const self = opts.identity ?? thisProcess();
  const site: Site = { path: `${statePath}.lock`, self, now, step, pause: () => sleep(20) };
  const startedAt = new Date(now()).toISOString();
  const procStart = opts.identity ? (opts.identity.procStart ?? null) : await ownProcStart();
  const token = randomBytes(8).toString("hex");
  const info: LockInfo = { ...self, startedAt, procStart, token, renewedAt: startedAt };
  const lockPath = site.path;
  try {
    await mkdir(dirname(lockPath), { recursive: true, mode: 0o700 });
    for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
      await step("acquire:create");
      if (await createExclusive(lockPath, text(info), step)) {
        // What failed or killed starters left (best effort).
        const names = ["", ".lock", ".lock.takeover"].map((suffix) => `${basename(statePath)}${suffix}`);
        await removeStaleTemps(dirname(lockPath), names, now(), pidExists).catch(() => []);
        return new Lock(site, info, opts.timer, opts.onLost);
      }
      await step("acquire:read");
      const found = await readLock(lockPath);
      const verdict = found && (await judge(found, self, now()));
      if (verdict === "live" && found?.info)
        throw new LockHeldError(statePath, lockPath, found.info, found.info.hostname === self.hostname);
      if (verdict === "damaged") {
        const what = `lock file ${lockPath} is being written or is damaged`;
        const hint = `if no threatbridge uses ${statePath}, delete it`;
        throw new StateError("state_locked", `${what}; ${hint}`, { file: lockPath });
      }
      if (found && (await guarded(site, text(info), () => removeIfSame(lockPath, found.text))) === "busy")
        await site.pause();
    }
  } catch (err) {
    if (err instanceof StateError) throw err;
    const detail = `${err instanceof Error ? err.message : String(err)}${errnoCode(err) === "EACCES" ? "; check the directory's permissions" : ""}`;
    const message = `cannot take the lock ${lockPath} (${detail})`;
    throw new StateError("state_lock_failed", message, { cause: err, file: lockPath });
  }
  const why = `it kept changing while other processes started; if none runs, delete ${lockPath} and ${lockPath}.takeover`;
  throw new StateError("state_lock_failed", `cannot take the lock ${lockPath}: ${why}`, { file: lockPath });
}

/** A held lock: renews its lease on a timer; removes its file on release or at process exit. */
export class Lock {
  readonly path: string;
  private mine: string;
  private renewedAtMs: number;
  private released = false;
  /** True once a renewal found the lock taken over (this process stalled past its lease). */
  lost = false;
  private inFlight: Promise<RenewResult> | null = null;
  private readonly stopTimer: () => void;
  private readonly onExit = (): void => {
    try {
      if (readFileSync(this.path, "utf8") === this.mine) unlinkSync(this.path);
    } catch {
      // Nothing more can be done at exit: the next start finds the lock stale.
    }
  };

  constructor(
    private readonly site: Site,
    readonly holder: LockInfo,
    timer: LockTimer | undefined,
    private readonly onLost: (() => void) | undefined,
  ) {
    this.path = site.path;
    this.mine = text(holder);
    this.renewedAtMs = Date.parse(holder.startedAt);
    process.on("exit", this.onExit);
    const repeat =
      timer?.repeat ??
      ((ms: number, fn: () => void) => clearInterval.bind(null, setInterval(fn, ms).unref()));
    // A failed renewal (an I/O error) is tried again at the next tick: the lease has room for a few.
    this.stopTimer = repeat(RENEW_EVERY_MS, () => void this.renew().catch(() => undefined));
  }

  /**
   * Renews the lease now; one renewal at a time (a call while one runs shares its result). A
   * holder whose own lease ran out (it stalled) does not settle for "busy": a starter is taking
   * the lock over at that moment, and until the holder knows whether it did, it must not believe
   * it holds the lock; so it waits for the guard.
   */
  renew(): Promise<RenewResult> {
    if (this.released || this.lost) return Promise.resolve(this.lost ? "lost" : "released");
    this.inFlight ??= (async () => {
      for (let tries = 1; ; tries++) {
        const result = await this.renewOnce();
        const stalled = this.site.now() - this.renewedAtMs > LEASE_MS;
        if (result !== "busy" || !stalled || tries >= MAX_TRIES) return result;
        await this.site.step("renew:busy-stalled");
        await this.site.pause();
      }
    })().finally(() => (this.inFlight = null));
    return this.inFlight;
  }

  /**
   * Under the guard nobody removes the lock file, and rename() keeps it existing throughout (nobody
   * can create it), so between "the file is still mine" and the replace it stays mine.
   */
  private async renewOnce(): Promise<RenewResult> {
    const renewedAt = this.site.now();
    const next = text({ ...this.holder, renewedAt: new Date(renewedAt).toISOString() });
    await this.site.step("renew:guard");
    return guarded(this.site, next, async () => {
      if ((await readText(this.path)) !== this.mine) {
        this.stop();
        this.lost = true;
        this.onLost?.();
        return "lost";
      }
      if (this.released) return "released";
      await this.site.step("renew:checked");
      // Replaced by rename, not writeFileAtomic: the guard is held meanwhile, so an fsync on a slow
      // volume would hold off every starter, and a renewal lost to a power cut costs nothing.
      const tmp = tempPathFor(this.path);
      try {
        await writeFile(tmp, next, { flag: "wx", mode: 0o600 });
        await rename(tmp, this.path);
      } finally {
        await rm(tmp, { force: true });
      }
      [this.mine, this.renewedAtMs] = [next, renewedAt];
      return "renewed";
    });
  }

  /**
   * Before a write: resolves when this process surely still holds the lock. Free while renewals
   * run on time; after a stall, renews first, and rejects with `state_lock_lost` when the lock was
   * taken over meanwhile or that cannot be known.
   */
  async confirm(): Promise<void> {
    if (this.released) return;
    if (!this.lost && this.site.now() - this.renewedAtMs <= RENEW_EVERY_MS * 2) return;
    const result = await this.renew();
    if (result === "renewed" || result === "released") return;
    const what = result === "lost" ? "was taken over" : "is being taken over";
    const message = `the lock ${this.path} ${what} by another process while this one stalled; it writes nothing more`;
    throw new StateError("state_lock_lost", message, { file: this.path });
  }

  private stop(): void {
    this.stopTimer();
    process.removeListener("exit", this.onExit);
  }

  /** Stops the renewal and removes the lock file if it still holds this lock. Idempotent. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    this.stop();
    await this.inFlight?.catch(() => undefined);
    await removeIfSame(this.path, this.mine);
  }
}
