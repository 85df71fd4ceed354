import { readFileSync, unlinkSync } from "node:fs";
import { link, open, readFile, rename, rm, stat, unlink } from "node:fs/promises";
import { z } from "zod";
import { tempPathFor } from "./atomic-write.js";
import { errnoCode } from "./errors.js";

/** What a lock file holds: enough to name the holder and to tell whether it still runs. */
export const LockInfo = z.object({
  pid: z.int().positive(),
  hostname: z.string(),
  startedAt: z.string(),
  /** /proc/<pid>/stat field 22 of the holder, null where there is no procfs. */
  procStart: z.string().nullable().optional(),
  /** Random per acquisition, so that two locks of one process never have the same content. */
  token: z.string().optional(),
  /**
   * The holder's last sign of life: rewritten by the holder every few seconds while it works (the
   * lease). A holder on another host that stopped renewing stops blocking within 60 s of it
   * (contract, "Command line"). Absent in locks written before the lease: startedAt stands in.
   */
  renewedAt: z.string().optional(),
});
export type LockInfo = z.infer<typeof LockInfo>;

export interface LockFileContent {
  text: string;
  /** null when the text is not a valid lock (damaged, or written by something else). */
  info: LockInfo | null;
  mtimeMs: number;
}

function parseLockText(text: string): LockInfo | null {
  try {
    const parsed = LockInfo.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Reads a lock file; null when it does not exist. */
export async function readLockFile(path: string): Promise<LockFileContent | null> {
  try {
    const [text, stats] = await Promise.all([readFile(path, "utf8"), stat(path)]);
    return { text, info: parseLockText(text), mtimeMs: stats.mtimeMs };
  } catch (err) {
    if (errnoCode(err) === "ENOENT") return null;
    throw err;
  }
}

/**
 * A named point between two file operations of the lock. Tests pass a step that throws there (a
 * fault: disk full) or that waits for a scheduler (to interleave racing starters); the default
 * does nothing.
 */
export type LockStep = (point: string) => Promise<void>;
export const noStep: LockStep = () => Promise.resolve();

/**
 * Replaces `path` with `text` atomically (temp file + rename), for the holder's lease renewal: a
 * reader sees the old content or the new one, and the file never stops existing, so no starter
 * can create it in between.
 */
export async function replaceFile(path: string, text: string): Promise<void> {
  const tmp = tempPathFor(path);
  try {
    await writeFileExclusive(tmp, text);
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

async function writeFileExclusive(path: string, text: string): Promise<void> {
  const handle = await open(path, "wx", 0o600);
  try {
    await handle.writeFile(text, "utf8");
  } finally {
    await handle.close();
  }
}

/** File systems without hard links answer link() with one of these. */
const NO_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV"]);

/**
 * Creates `path` holding `text` unless it exists; true when this call created it. The content is
 * written to a private temp file first and hard-linked into place, so that the lock file never
 * exists half-written (a reader would otherwise have to guess whether an empty file is stale).
 * Where hard links are not supported, falls back to open(path, "wx", 0o600) and a write.
 */
export async function createExclusive(path: string, text: string, step: LockStep = noStep): Promise<boolean> {
  const tmp = tempPathFor(path);
  // From the moment the temp file exists, every way out removes it: a failed write (disk full)
  // must not leave `<lock>.<pid>.<rand>.tmp` files behind.
  const handle = await open(tmp, "wx", 0o600);
  try {
    try {
      await handle.writeFile(text, "utf8");
      await step("lock:temp-written");
    } finally {
      await handle.close();
    }
    await link(tmp, path);
    return true;
  } catch (err) {
    const code = errnoCode(err);
    if (code === "EEXIST") return false;
    if (code !== undefined && NO_LINKS.has(code)) return createWithOpen(path, text);
    throw err;
  } finally {
    await rm(tmp, { force: true });
  }
}

async function createWithOpen(path: string, text: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, "wx", 0o600);
  } catch (err) {
    if (errnoCode(err) === "EEXIST") return false;
    throw err;
  }
  try {
    await handle.writeFile(text, "utf8");
  } finally {
    await handle.close();
  }
  return true;
}

/**
 * Removes `path` if it still holds exactly `text`. Safe only where nobody else may replace the
 * file between the read and the unlink: a live holder's own lock, or a stale lock while holding
 * the takeover guard.
 */
export async function removeIfSame(path: string, text: string): Promise<boolean> {
  const current = await readLockFile(path);
  if (current === null || current.text !== text) return false;
  try {
    await unlink(path);
  } catch (err) {
    if (errnoCode(err) !== "ENOENT") throw err;
  }
  return true;
}

/** removeIfSame for process exit, where only synchronous work runs. Best effort, never throws. */
export function removeIfSameSync(path: string, text: string): void {
  try {
    if (readFileSync(path, "utf8") === text) unlinkSync(path);
  } catch {
    // Nothing to do at exit: a lock left behind is recognised as stale by the next start.
  }
}

/**
 * Removes `path` if it holds `text`, for files that others may replace at any moment: the file is
 * first moved to a unique name (atomic), then checked; if it turns out to be someone else's, it
 * is linked back into place.
 */
export async function removeIfUnchangedRacy(path: string, text: string): Promise<void> {
  const aside = tempPathFor(path);
  try {
    await rename(path, aside);
  } catch (err) {
    if (errnoCode(err) === "ENOENT") return;
    throw err;
  }
  try {
    const moved = await readFile(aside, "utf8");
    if (moved !== text) {
      await link(aside, path).catch((err: unknown) => {
        if (errnoCode(err) !== "EEXIST") throw err;
      });
    }
  } finally {
    await rm(aside, { force: true });
  }
}
