import type { LockFileContent, LockInfo } from "./lock-file.js";
import { pidExists, readProcStat } from "./proc-stat.js";

/**
 * The lease (contract, "Command line": a holder on another host stops blocking "within 60 s of its
 * last sign of life"). The holder renews every RENEW_EVERY_MS; a holder on another host whose last
 * renewal is older than LEASE_MS is stale. LEASE_MS leaves 15 s of the contract's 60 s for clock
 * skew between hosts, and is long enough for a holder to miss three renewals in a row (a slow
 * volume, a long GC pause) without losing its lock.
 */
export const RENEW_EVERY_MS = 10_000;
export const LEASE_MS = 45_000;
/** A lock file that cannot be parsed is treated as stale once it is this old (it might be mid-write). */
const DAMAGED_GRACE_MS = 10_000;

/** Who is looking: a process on a host. Tests give each simulated starter its own. */
export interface LockIdentity {
  pid: number;
  hostname: string;
}

export type Verdict =
  | { kind: "live"; sameHost: boolean; info: LockInfo }
  | { kind: "damaged" }
  | { kind: "stale"; info: LockInfo | null };

/** The holder's last sign of life, in ms since the epoch (NaN when the lock names none readable). */
function lastRenewal(info: LockInfo): number {
  return Date.parse(info.renewedAt ?? info.startedAt);
}

/**
 * A holder on this host is alive when its pid exists and is not a zombie, and (where its start
 * time was recorded) the process with that pid started at the same moment: the start time is what
 * makes a lock left by a SIGKILLed process stale even when its pid was reused since — pid 1 in a
 * restarted container, or this very process. That check is instant. A holder on another host
 * cannot be checked that way: it is alive while its lease is fresh.
 */
export async function judge(content: LockFileContent, self: LockIdentity, now: number): Promise<Verdict> {
  const info = content.info;
  if (info === null)
    return now - content.mtimeMs < DAMAGED_GRACE_MS ? { kind: "damaged" } : { kind: "stale", info: null };
  if (info.hostname !== self.hostname) {
    const renewed = lastRenewal(info);
    // An unreadable time cannot prove the holder gone; the file's mtime is then its sign of life.
    const since = Number.isNaN(renewed) ? content.mtimeMs : renewed;
    return now - since > LEASE_MS ? { kind: "stale", info } : { kind: "live", sameHost: false, info };
  }
  if (!pidExists(info.pid)) return { kind: "stale", info };
  const stat = await readProcStat(info.pid);
  if (stat === "gone") return { kind: "stale", info };
  // Cannot read /proc: the pid exists, so assume it is the holder.
  if (stat === "unknown") return { kind: "live", sameHost: true, info };
  if (stat.state === "Z" || stat.state === "X") return { kind: "stale", info };
  if (info.procStart != null && info.procStart !== stat.startTime) return { kind: "stale", info };
  return { kind: "live", sameHost: true, info };
}
