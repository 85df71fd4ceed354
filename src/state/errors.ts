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

/** The `code` of a Node.js system error (ENOENT, EEXIST, …), if it is one. */
export function errnoCode(err: unknown): string | undefined {
  if (err instanceof Error && "code" in err && typeof err.code === "string") return err.code;
  return undefined;
}
