import { randomBytes } from "node:crypto";
import { mkdir, open, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
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

async function syncDirectory(dir: string): Promise<void> {
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
