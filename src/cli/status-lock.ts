import { readFile, stat } from "node:fs/promises";
import { hostname } from "node:os";
import { z } from "zod";

/**
 * Whether a process holds the state lock now, for `status` (issue 8). An adapter over the lock
 * file's JSON (`<state>.lock`, written by src/state/lock.ts) until the lock module offers a
 * read-only `inspectLock(path)`: it reads, never takes or removes the lock.
 */

const LockFile = z.looseObject({
  pid: z.int().positive(),
  hostname: z.string(),
  startedAt: z.string(),
});

export type LockView =
  | { held: false }
  | {
      held: true;
      pid: number;
      hostname: string;
      since: string;
      /** Last sign of life: the file's modification time (a lease renews it), ISO. */
      lastSeen: string;
      /** Same host: whether the pid runs. Another host: unknown (null). */
      alive: boolean | null;
    }
  | { held: true; damaged: true; lastSeen: string };

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return error instanceof Error && "code" in error && error.code === "EPERM";
  }
}

export async function inspectLockFile(statePath: string): Promise<LockView> {
  const path = `${statePath}.lock`;
  let text: string;
  let mtimeMs: number;
  try {
    [text, { mtimeMs }] = await Promise.all([readFile(path, "utf8"), stat(path)]);
  } catch {
    return { held: false };
  }
  const lastSeen = new Date(mtimeMs).toISOString();
  let parsed: z.infer<typeof LockFile>;
  try {
    const result = LockFile.safeParse(JSON.parse(text));
    if (!result.success) return { held: true, damaged: true, lastSeen };
    parsed = result.data;
  } catch {
    return { held: true, damaged: true, lastSeen };
  }
  const sameHost = parsed.hostname === hostname();
  return {
    held: true,
    pid: parsed.pid,
    hostname: parsed.hostname,
    since: parsed.startedAt,
    lastSeen,
    alive: sameHost ? running(parsed.pid) : null,
  };
}
