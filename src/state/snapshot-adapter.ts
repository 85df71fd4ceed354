import type { Adapter } from "lowdb";
import { basename, dirname } from "node:path";
import { tempPathFor } from "./atomic-write.js";
import { StateError } from "./errors.js";
import { migrateV1Text } from "./journaled-migrate.js";
import { SnapshotFormatError, decodeSnapshot, encodeSnapshot, type StoreView } from "./snapshot-codec.js";
import type { StoreFs } from "./store-fs.js";
import type { SliceTaggers } from "./slice-tags.js";

const LEFT_UNTOUCHED =
  "it was left untouched: restore it from a backup, or move it aside and run `threatbridge reconcile` to rebuild the mapping";

/**
 * lowdb's Adapter for the store's snapshot, the store of record: a compact JSON document
 * (snapshot-codec.ts) replaced atomically (temp file, fsync, rename, directory fsync), mode 0600.
 * Reading a state file of today's version 1 converts it (journaled-migrate.ts) and remembers its
 * text in `legacyText`, so that the store keeps a copy before replacing it.
 */
export class SnapshotAdapter implements Adapter<StoreView> {
  /** Size in bytes of the snapshot last read or written (0 when none). */
  bytes = 0;
  /** The text of a version-1 state file that the last read() converted, else null. */
  legacyText: string | null = null;

  constructor(
    readonly path: string,
    private readonly fs: StoreFs,
    private readonly pause: () => Promise<void>,
    /** The features' taggers, whose tags a snapshot keeps beside their slices (slice-tags.ts). */
    private readonly taggers?: SliceTaggers,
  ) {}

  async read(): Promise<StoreView | null> {
    let read: { text: string; bytes: number } | null;
    try {
      read = await this.fs.readText(this.path);
    } catch (err) {
      throw new StateError(
        "state_unreadable",
        `cannot read state file ${this.path} (${describe(err)}); check its permissions`,
        {
          cause: err,
          file: this.path,
        },
      );
    }
    this.legacyText = null;
    if (read === null) return null;
    let text: string | null = read.text;
    this.bytes = read.bytes;
    read = null;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      throw new StateError(
        "state_corrupt",
        `state file ${this.path} is not valid JSON (${describe(err)}); ${LEFT_UNTOUCHED}`,
        {
          cause: err,
          file: this.path,
        },
      );
    }
    if (
      typeof raw === "object" &&
      raw !== null &&
      !("format" in raw) &&
      "version" in raw &&
      raw.version === 1
    ) {
      const view = migrateV1Text(this.path, text);
      this.legacyText = text;
      return view;
    }
    // The text is not needed past here: let it go before the decode builds the table, rather than
    // hold it (16 MB at 100,000 threats with every feature on) through the load's peak.
    text = null;
    try {
      return decodeSnapshot(raw);
    } catch (err) {
      if (!(err instanceof SnapshotFormatError)) throw err;
      if (err.tooNew)
        throw new StateError(
          "state_too_new",
          `state file ${this.path} was written by a newer threatbridge (${err.message}): upgrade threatbridge to use it`,
          {
            cause: err,
            file: this.path,
          },
        );
      throw new StateError(
        "state_corrupt",
        `state file ${this.path} is not a valid snapshot (${err.message}); ${LEFT_UNTOUCHED}`,
        {
          cause: err,
          file: this.path,
        },
      );
    }
  }

  async write(view: StoreView): Promise<void> {
    const parts = await encodeSnapshot(view, this.pause, this.taggers);
    await writeAtomic(this.fs, this.path, parts);
    this.bytes = parts.reduce((sum, part) => sum + Buffer.byteLength(part, "utf8"), 0);
  }
}

/** Replaces `path` with `parts` so that a crash leaves the old file or the new one (atomic-write.ts). */
export async function writeAtomic(fs: StoreFs, path: string, parts: readonly string[]): Promise<void> {
  const tmp = tempPathFor(path);
  try {
    const file = await fs.open(tmp, "create");
    try {
      for (const part of parts) await file.write(part);
      await file.sync();
    } finally {
      await file.close();
    }
    await fs.rename(tmp, path);
  } catch (err) {
    await fs.remove(tmp).catch(() => undefined);
    throw err;
  }
  await fs.syncDir(dirname(path));
}

/** Whether `name` is a temporary file that writeAtomic left behind for `path` (a crash mid-write). */
export function isTempOf(path: string, name: string): boolean {
  return name.startsWith(`${basename(path)}.`) && name.endsWith(".tmp");
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
