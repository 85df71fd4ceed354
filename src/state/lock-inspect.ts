import { hostname } from "node:os";
import { readLockFile } from "./lock-file.js";
import { judge, type LockIdentity } from "./lock-judge.js";

/** Who holds a state file's lock, for `status` (read-only: it never takes or changes the lock). */
export type LockStatus =
  | { state: "free"; lockPath: string }
  /** The lock file cannot be parsed: being written, or damaged. */
  | { state: "damaged"; lockPath: string }
  | {
      /** "alive": it blocks a start now; "stale": the next start takes it over. */
      state: "alive" | "stale";
      lockPath: string;
      pid: number;
      hostname: string;
      sameHost: boolean;
      startedAt: string;
      /** The last lease renewal (startedAt for locks written before the lease). */
      renewedAt: string;
    };

/**
 * `path` is the state file's (`config.state.path`); its lock file `<path>.lock` is read. A path
 * that already ends in `.lock` is taken as the lock file itself.
 */
export async function inspectLock(
  path: string,
  opts: { now?: () => number; identity?: LockIdentity } = {},
): Promise<LockStatus> {
  const lockPath = path.endsWith(".lock") ? path : `${path}.lock`;
  const self = opts.identity ?? { pid: process.pid, hostname: hostname() };
  const content = await readLockFile(lockPath);
  if (content === null) return { state: "free", lockPath };
  const verdict = await judge(content, self, (opts.now ?? Date.now)());
  if (verdict.kind === "damaged") return { state: "damaged", lockPath };
  const info = verdict.kind === "live" ? verdict.info : verdict.info;
  if (info === null) return { state: "damaged", lockPath };
  return {
    state: verdict.kind === "live" ? "alive" : "stale",
    lockPath,
    pid: info.pid,
    hostname: info.hostname,
    sameHost: info.hostname === self.hostname,
    startedAt: info.startedAt,
    renewedAt: info.renewedAt ?? info.startedAt,
  };
}
