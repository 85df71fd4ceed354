import { dirname } from "node:path";
import type { StoreFile, StoreFs } from "../../src/state/store-fs.js";

/** Thrown by every operation of a MemFs from its crash point on: the process "died" there. */
export class Crash extends Error {}

interface Inode {
  data: Buffer;
  /** What an fsync made durable. */
  synced: Buffer;
}

function fsError(code: string, path: string): Error {
  return Object.assign(new Error(`${code}: ${path}`), { code });
}

/**
 * An in-memory StoreFs that models what survives a crash: a file's bytes survive only up to its
 * last fsync (beyond that, any prefix of what was written may survive: a torn append), and a
 * directory's entries (creates, renames, removes) only as of its last directory fsync. Operation
 * number `crashAt` and every later one throw Crash without taking effect; `crashImage()` is the
 * disk a restarted process finds.
 */
export class MemFs implements StoreFs {
  private entries = new Map<string, Inode>();
  private durable = new Map<string, Inode>();
  ops = 0;
  crashed = false;

  constructor(private readonly crashAt = Number.POSITIVE_INFINITY) {}

  private step(): void {
    if (this.crashed) throw new Crash("crashed");
    this.ops += 1;
    if (this.ops >= this.crashAt) {
      this.crashed = true;
      throw new Crash(`crash at operation ${this.ops}`);
    }
  }

  readText(path: string): Promise<{ text: string; bytes: number } | null> {
    if (this.crashed) return Promise.reject(new Crash("crashed"));
    const data = this.entries.get(path)?.data;
    return Promise.resolve(data === undefined ? null : { text: data.toString("utf8"), bytes: data.length });
  }

  list(dir: string): Promise<string[]> {
    const names = [...this.entries.keys()]
      .filter((p) => dirname(p) === dir)
      .map((p) => p.slice(dir.length + 1));
    return Promise.resolve(names);
  }

  open(path: string, mode: "append" | "create"): Promise<StoreFile> {
    try {
      this.step();
    } catch (err) {
      return Promise.reject(err);
    }
    let inode = this.entries.get(path);
    if (inode !== undefined && mode === "create") return Promise.reject(fsError("EEXIST", path));
    if (inode === undefined) {
      inode = { data: Buffer.alloc(0), synced: Buffer.alloc(0) };
      this.entries.set(path, inode);
    }
    const file = inode;
    return Promise.resolve({
      write: async (text: string) => {
        this.step();
        file.data = Buffer.concat([file.data, Buffer.from(text, "utf8")]);
      },
      sync: async () => {
        this.step();
        file.synced = file.data;
      },
      close: async () => undefined,
    });
  }

  async rename(from: string, to: string): Promise<void> {
    this.step();
    const inode = this.entries.get(from);
    if (inode === undefined) throw fsError("ENOENT", from);
    this.entries.delete(from);
    this.entries.set(to, inode);
  }

  async remove(path: string): Promise<void> {
    this.step();
    this.entries.delete(path);
  }

  async truncate(path: string, bytes: number): Promise<void> {
    this.step();
    const inode = this.entries.get(path);
    if (inode === undefined) throw fsError("ENOENT", path);
    inode.data = inode.data.subarray(0, bytes);
  }

  /** One flat namespace of paths: directories need no creating. */
  async ensureDir(_dir: string): Promise<void> {}

  async syncDir(_dir: string): Promise<void> {
    this.step();
    this.durable = new Map(this.entries);
  }

  /** The disk after a crash now; `random` picks how much of each unsynced tail survived. */
  crashImage(random: () => number): MemFs {
    const image = new MemFs();
    for (const [path, inode] of this.durable) {
      let data = inode.synced;
      const extends_ =
        inode.data.length > inode.synced.length &&
        inode.data.subarray(0, inode.synced.length).equals(inode.synced);
      if (extends_)
        data = inode.data.subarray(
          0,
          inode.synced.length + Math.floor(random() * (inode.data.length - inode.synced.length + 1)),
        );
      else if (!inode.data.equals(inode.synced) && random() < 0.5) data = inode.data;
      const copy = Buffer.from(data);
      image.entries.set(path, { data: copy, synced: copy });
    }
    image.durable = new Map(image.entries);
    return image;
  }

  /** Test inspection: the current text of a file. */
  text(path: string): string | undefined {
    return this.entries.get(path)?.data.toString("utf8");
  }

  /** Test set-up: writes a durable file directly. */
  put(path: string, text: string): void {
    const data = Buffer.from(text, "utf8");
    this.entries.set(path, { data, synced: data });
    this.durable = new Map(this.entries);
  }
}
