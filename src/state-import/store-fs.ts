import { isAscii } from "node:buffer";
import { mkdir, open, readFile, readdir, rename, rm, truncate } from "node:fs/promises";
import { errnoCode } from "../state/errors.js";
import { syncDirectory } from "../state/atomic-write.js";

/**
 * The few file operations the journaled store needs, as a narrow seam: the store's crash safety
 * is argued over these steps alone, and tests run it over an in-memory file system that loses
 * whatever was not fsynced when it "crashes" (test/state/journal-mem-fs.ts).
 */
export interface StoreFs {
  /**
   * The file's text and its size in bytes (UTF-8), or null when it does not exist. The size comes
   * with the read: measuring a 15 MB text again took ~15 ms of a start.
   */
  readText(path: string): Promise<{ text: string; bytes: number } | null>;
  /** The names (not paths) in `dir`; empty when `dir` does not exist. */
  list(dir: string): Promise<string[]>;
  /** Opens for appending (created 0600 when absent) or creates a new file (fails if it exists). */
  open(path: string, mode: "append" | "create"): Promise<StoreFile>;
  rename(from: string, to: string): Promise<void>;
  /** Removes a file; absent is fine. */
  remove(path: string): Promise<void>;
  truncate(path: string, bytes: number): Promise<void>;
  /** Creates the directory (and its parents, mode 0700) when absent. */
  ensureDir(dir: string): Promise<void>;
  /** Makes the directory's entries (creates, renames, removes) durable. */
  syncDir(dir: string): Promise<void>;
}

export interface StoreFile {
  write(text: string): Promise<void>;
  /** fsync: when it resolves, everything written so far survives a crash. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** StoreFs over node:fs. Files are created with mode 0600 whatever the umask. */
export const nodeStoreFs: StoreFs = {
  async readText(path) {
    try {
      const bytes = await readFile(path);
      // ASCII (what the store writes) read as latin1, the same characters: Node keeps a large
      // latin1 text outside V8's heap (an external string), so the snapshot's text does not count
      // towards the old generation while it is parsed.
      return { text: bytes.toString(isAscii(bytes) ? "latin1" : "utf8"), bytes: bytes.length };
    } catch (err) {
      if (errnoCode(err) === "ENOENT") return null;
      throw err;
    }
  },
  async list(dir) {
    try {
      return await readdir(dir);
    } catch (err) {
      if (errnoCode(err) === "ENOENT") return [];
      throw err;
    }
  },
  async open(path, mode) {
    const handle = await open(path, mode === "append" ? "a" : "wx", 0o600);
    // The umask may have taken bits away from 0o600 at creation: set it exactly.
    await handle.chmod(0o600);
    return {
      write: async (text) => {
        // appendFile loops until every byte is written (a single write() may write fewer).
        await handle.appendFile(text, "utf8");
      },
      sync: () => handle.sync(),
      close: () => handle.close(),
    };
  },
  rename: (from, to) => rename(from, to),
  remove: (path) => rm(path, { force: true }),
  truncate: (path, bytes) => truncate(path, bytes),
  async ensureDir(dir) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  },
  syncDir: (dir) => syncDirectory(dir),
};
