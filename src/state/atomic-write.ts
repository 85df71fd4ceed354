import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { errnoCode } from "./errors.js";

/** The name of a temporary sibling of `path`: same directory, so that rename() is atomic. */
export function tempPathFor(path: string): string {
  return `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
}

/**
 * Replaces `path` with `content` so that a crash at any moment leaves either the old file or the
 * new one, never a mix: write a private temp file, fsync it, rename it over the target, fsync the
 * directory so the rename itself survives a power loss. The result always has mode 0600, whatever
 * the umask or the old file's mode (it may hold tokens' effects and issue mappings).
 */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const tmp = tempPathFor(path);
  const handle = await open(tmp, "wx", 0o600);
  try {
    try {
      await handle.writeFile(content, "utf8");
      // The umask may have taken bits away from 0o600 at creation: set it exactly.
      await handle.chmod(0o600);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  await syncDirectory(dir);
}

/** fsyncs a directory, so that a rename or a new file in it survives a crash (where the platform allows). */
export async function syncDirectory(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, "r");
    await handle.sync();
  } catch (err) {
    // Some platforms and file systems cannot open or fsync a directory; the rename is done anyway.
    const code = errnoCode(err);
    if (code !== "EISDIR" && code !== "EPERM" && code !== "EINVAL" && code !== "EACCES") throw err;
  } finally {
    await handle?.close();
  }
}

/** A temp file left by a process that is gone is removed once it is this old (see removeStaleTemps). */
const STALE_TEMP_MS = 60_000;

/**
 * Removes temp files (`<name>.<pid>.<rand>.tmp`, from tempPathFor) of the files `names` in `dir`
 * that a crashed or failed process left behind. A temp file is stale when its pid does not run
 * here and it is over a minute old: the age keeps the temp file of a live process on another host
 * sharing the volume (whose pid means nothing here) safe, since those live for milliseconds.
 * Best effort: returns the names removed.
 */
export async function removeStaleTemps(
  dir: string,
  names: readonly string[],
  opts: { now: number; pidRuns: (pid: number) => boolean },
): Promise<string[]> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const entry of entries) {
    const match = /^(.*)\.(\d+)\.[0-9a-f]{12}\.tmp$/.exec(entry);
    if (match === null || !names.includes(match[1] ?? "")) continue;
    const pid = Number(match[2]);
    if (pid === process.pid || opts.pidRuns(pid)) continue;
    try {
      const stats = await stat(join(dir, entry));
      if (opts.now - stats.mtimeMs < STALE_TEMP_MS) continue;
      await rm(join(dir, entry), { force: true });
      removed.push(entry);
    } catch {
      // Removed by another starter meanwhile, or unreadable: nothing to clean.
    }
  }
  return removed;
}
