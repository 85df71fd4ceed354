/**
 * Errors of the state store and the single-instance lock. Each carries a stable `code` and the
 * original `cause`; messages name the file and tell the operator what to do next.
 */

type StateErrorCode =
  | "state_corrupt"
  | "state_too_new"
  | "state_too_old"
  | "state_unreadable"
  | "state_write_failed"
  | "state_locked"
  | "state_lock_failed"
  | "state_lock_lost";

export class StateError extends Error {
  readonly code: StateErrorCode;
  /** The file concerned (state file or lock file), when known. */
  readonly file: string | undefined;

  constructor(code: StateErrorCode, message: string, options?: { cause?: unknown; file?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.file = options?.file;
  }
}

/** Who holds the lock (lock-judge.ts LockInfo). */
type LockHolder = { pid: number; hostname: string; startedAt: string; renewedAt?: string | undefined };

/** Another live process (or one on another host, which cannot be checked) holds the state file's lock. */
export class LockHeldError extends StateError {
  readonly pid: number;
  readonly hostname: string;
  readonly startedAt: string;

  constructor(statePath: string, lockPath: string, holder: LockHolder, sameHost: boolean) {
    const base = `state file ${statePath} is in use by pid ${holder.pid} on host ${holder.hostname} since ${holder.startedAt}`;
    // A holder on another host is judged by its lease: it stops blocking once it stops renewing.
    const lease =
      holder.renewedAt === undefined
        ? ""
        : `it last renewed its lease at ${holder.renewedAt}, and a start after the lease runs out (within 60 s of that) takes it over; `;
    const next = sameHost
      ? "stop that process first"
      : `${lease}this host cannot check whether it still runs: stop it there, or delete ${lockPath} if host ${holder.hostname} is gone`;
    super("state_locked", `${base}; ${next}`, { file: lockPath });
    this.pid = holder.pid;
    this.hostname = holder.hostname;
    this.startedAt = holder.startedAt;
  }
}

/** The `code` of a Node.js system error (ENOENT, EEXIST, …), if it is one. */
export function errnoCode(err: unknown): string | undefined {
  if (err instanceof Error && "code" in err && typeof err.code === "string") return err.code;
  return undefined;
}
