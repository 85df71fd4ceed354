import { readFile, stat } from "node:fs/promises";
import { hostname } from "node:os";
import { z } from "zod";
import { errnoCode, StateError } from "./errors.js";

/**
 * The lease (contract: a holder on another host stops blocking "within 60 s of its last sign of
 * life"): renewed every RENEW_EVERY_MS, stale after LEASE_MS, which leaves 15 s for clock skew
 * between hosts and lets a holder miss three renewals in a row (a slow volume, a long GC pause).
 */
export const RENEW_EVERY_MS = 10_000;
export const LEASE_MS = 45_000;
/** A lock file that cannot be parsed blocks until it is this old (a file system without hard links shows it mid-write). */
const DAMAGED_GRACE_MS = 10_000;

/** What a lock file holds: enough to name the holder and to tell whether it still runs. */
export const LockInfo = z.object({
  pid: z.int().positive(),
  hostname: z.string(),
  startedAt: z.iso.datetime(),
  /** Field 22 of the holder's /proc/<pid>/stat (its start time), null where there is no procfs. */
  procStart: z.string().nullable().optional(),
  /** Random per acquisition, so that two locks of one process never have the same content. */
  token: z.string().optional(),
  /** The holder's last sign of life, rewritten every RENEW_EVERY_MS (startedAt stands in when absent). */
  renewedAt: z.iso.datetime().optional(),
});
export type LockInfo = z.infer<typeof LockInfo>;

/** Another live process (or one on another host, which cannot be checked) holds the state file's lock. */
export class LockHeldError extends StateError {
  readonly pid: number;
  readonly hostname: string;
  readonly startedAt: string;

  constructor(statePath: string, lockPath: string, holder: LockInfo, sameHost: boolean) {
    const base = `state file ${statePath} is in use by pid ${holder.pid} on host ${holder.hostname} since ${holder.startedAt}`;
    // A holder on another host is judged by its lease: it stops blocking once it stops renewing.
    const lease = holder.renewedAt
      ? `it last renewed its lease at ${holder.renewedAt}, and a start after the lease runs out (within 60 s of that) takes it over; `
      : "";
    const next = sameHost
      ? "stop that process first"
      : `${lease}this host cannot check whether it still runs: stop it there, or delete ${lockPath} if host ${holder.hostname} is gone`;
    super("state_locked", `${base}; ${next}`, { file: lockPath });
    ({ pid: this.pid, hostname: this.hostname, startedAt: this.startedAt } = holder);
  }
}

/** Who is looking: a process on a host. Tests give each simulated starter its own. */
export type LockIdentity = { pid: number; hostname: string };

export const thisProcess = (): LockIdentity => ({ pid: process.pid, hostname: hostname() });

/** A lock file as read; `info` is null when its text is not a lock (damaged, mid-write, a time unreadable). */
export type LockFile = { text: string; info: LockInfo | null; mtimeMs: number };

export async function readText(path: string): Promise<string | null> {
  return readFile(path, "utf8").catch((err: unknown) => {
    if (errnoCode(err) === "ENOENT") return null;
    throw err;
  });
}

export async function readLock(path: string): Promise<LockFile | null> {
  const [text, stats] = await Promise.all([readText(path), stat(path).catch(() => null)]);
  if (text === null) return null;
  let info: LockInfo | null = null;
  try {
    info = LockInfo.safeParse(JSON.parse(text)).data ?? null;
  } catch {
    // Not JSON: damaged.
  }
  return { text, info, mtimeMs: stats?.mtimeMs ?? Date.now() };
}

/**
 * Fields 3 (state: R, S, Z for zombie, X for dead…) and 22 (start time in clock ticks since boot,
 * which with the pid names one process) of /proc/<pid>/stat (proc(5)). Field 2, the command name
 * in parentheses, may hold spaces and parentheses itself, so fields are counted from the last ')'.
 */
export function parseProcStat(text: string): { state: string; startTime: string } | null {
  const close = text.lastIndexOf(")");
  const fields = text.slice(close + 1).match(/\S+/g) ?? [];
  const [state, startTime] = [fields[0], fields[19]];
  if (close < 0 || state === undefined || startTime === undefined || !/^\d+$/.test(startTime)) return null;
  return { state, startTime };
}

/** This process's start time (field 22), null where there is no procfs (macOS, Windows). */
export async function ownProcStart(): Promise<string | null> {
  return parseProcStat((await readText("/proc/self/stat").catch(() => null)) ?? "")?.startTime ?? null;
}

/** Whether a process with this pid exists (signal 0 only checks; EPERM means it exists). */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errnoCode(err) !== "ESRCH";
  }
}

/**
 * Whether the holder on this host still runs: its pid exists and is not a zombie, and (where its
 * start time was recorded) the process with that pid started at that moment. The start time is
 * what makes a lock left by a SIGKILLed process stale even when its pid was reused since (pid 1 in
 * a restarted container, or this very process).
 */
async function runs(info: LockInfo): Promise<boolean> {
  if (!pidExists(info.pid)) return false;
  const text = await readText(`/proc/${info.pid}/stat`).catch((err: unknown) =>
    errnoCode(err) === "ESRCH" ? null : "",
  );
  // No such file: the process ended since kill(0), unless there is no procfs at all.
  if (text === null) return (await ownProcStart()) === null;
  const stat = parseProcStat(text);
  // Unreadable: the pid exists, so assume it is the holder.
  if (stat === null) return true;
  return !["Z", "X"].includes(stat.state) && (info.procStart == null || info.procStart === stat.startTime);
}

type Verdict = "live" | "stale" | "damaged";

/**
 * "live": it blocks a start; "stale": a start takes it over (the holder died on this host, or on
 * another host stopped renewing for LEASE_MS: it cannot be checked any other way); "damaged": a
 * fresh file that is not a lock, which blocks while it may be mid-write.
 */
export async function judge(file: LockFile, self: LockIdentity, now: number): Promise<Verdict> {
  const { info } = file;
  if (info === null) return now - file.mtimeMs < DAMAGED_GRACE_MS ? "damaged" : "stale";
  if (info.hostname === self.hostname) return (await runs(info)) ? "live" : "stale";
  return now - Date.parse(info.renewedAt ?? info.startedAt) > LEASE_MS ? "stale" : "live";
}

/** Who holds a state file's lock, as `status` shows it. */
export type LockView =
  | { held: false }
  /** `alive`: it blocks a start now (false: the next start takes it over); `lastSeen`: its last renewal. */
  | { held: true; pid: number; hostname: string; since: string; lastSeen: string; alive: boolean }
  /** A lock file that cannot be parsed (being written, or damaged), last written at `lastSeen`. */
  | { held: true; damaged: true; lastSeen: string };

/** Reads the lock of the state file at `statePath` and judges it as a start would; changes nothing. */
export async function inspectLock(statePath: string, opts: { now?: () => number } = {}): Promise<LockView> {
  const file = await readLock(`${statePath}.lock`);
  if (file === null) return { held: false };
  if (file.info === null)
    return { held: true, damaged: true, lastSeen: new Date(file.mtimeMs).toISOString() };
  const { pid, hostname, startedAt, renewedAt } = file.info;
  const alive = (await judge(file, thisProcess(), (opts.now ?? Date.now)())) === "live";
  return { held: true, pid, hostname, since: startedAt, lastSeen: renewedAt ?? startedAt, alive };
}
