import { randomBytes } from "node:crypto";
import { open, readdir, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { errnoCode } from "./errors.js";

/** The name of a temporary sibling of `path`: same directory, so that rename() is atomic. */
export function tempPathFor(path: string): string {
  return `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
}

/**
 * Replaces `path` (its directory exists) with `content` so that a crash at any moment leaves the
 * old file or the new one, never a mix: write a private temp file, fsync it, rename it over the
 * target, fsync the directory so the rename survives a power loss. The result always has mode
 * 0600, whatever the umask or the old file's mode (it may hold tokens' effects and issue mappings).
 */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  const dir = dirname(path);
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
    if (!["EISDIR", "EPERM", "EINVAL", "EACCES"].includes(errnoCode(err) ?? "")) throw err;
  } finally {
    await handle?.close();
  }
}

/**
 * Removes the temp files (from tempPathFor) of the files `names` in `dir` that a killed process
 * left: its pid does not run here, and it is over a minute old, which keeps safe the temp file of
 * a live process on another host sharing the volume (whose pid means nothing here): those live
 * for milliseconds. Best effort.
 */
export async function removeStaleTemps(
  dir: string,
  names: readonly string[],
  now: number,
  pidRuns: (pid: number) => boolean,
): Promise<void> {
  for (const entry of await readdir(dir)) {
    const [, name = "", pid = ""] = /^(.*)\.(\d+)\.[0-9a-f]{12}\.tmp$/.exec(entry) ?? [];
    if (!names.includes(name) || Number(pid) === process.pid || pidRuns(Number(pid))) continue;
    const path = join(dir, entry);
    const stats = await stat(path).catch(() => null);
    if (stats !== null && now - stats.mtimeMs >= 60_000) await rm(path, { force: true });
  }
}
