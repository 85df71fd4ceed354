import { stat } from "node:fs/promises";
import { inspectLock } from "../state/index.js";

/**
 * Whether a process holds the state lock now, for `status`: a view over the lock
 * module's read-only `inspectLock`, which judges a lease the way a starting process would.
 */

export type LockView =
  | { held: false }
  | {
      held: true;
      pid: number;
      hostname: string;
      since: string;
      /** Last sign of life: the lease's last renewal, ISO. */
      lastSeen: string;
      /** Whether it still blocks a start: alive, or stale (the next start takes it over). */
      alive: boolean | null;
    }
  | { held: true; damaged: true; lastSeen: string };

export async function inspectLockFile(statePath: string): Promise<LockView> {
  const status = await inspectLock(statePath);
  if (status.state === "free") return { held: false };
  if (status.state === "damaged") {
    const mtime = await stat(status.lockPath).then(
      (s) => new Date(s.mtimeMs).toISOString(),
      () => new Date().toISOString(),
    );
    return { held: true, damaged: true, lastSeen: mtime };
  }
  return {
    held: true,
    pid: status.pid,
    hostname: status.hostname,
    since: status.startedAt,
    lastSeen: status.renewedAt,
    alive: status.state === "alive",
  };
}
