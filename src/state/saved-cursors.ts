import { readFile } from "node:fs/promises";
import { Low, type Adapter } from "lowdb";
import { writeFileAtomic } from "./atomic-write.js";
import type { Json } from "./database.js";
import { errnoCode, StateError } from "./errors.js";

/**
 * The saved cursors: the JSON document at `state.path` (lowdb; indented, for a person to read),
 * holding the stream cursors, GitHub's watermarks and ETags, the last cycle and the other values
 * of store.ts `CURSOR_KEYS`. Written atomically with mode 0600 (temp file, fsync, rename).
 */
export const DOCUMENT_FORMAT = "threatbridge-cursors";

interface Document {
  format: typeof DOCUMENT_FORMAT;
  version: 1;
  values: Record<string, Json>;
}

export interface SavedCursors {
  /** No document of this format was found: the values start from the database's (seed). */
  readonly fresh: boolean;
  /** Whether a value changed since the last `take`. */
  readonly dirty: boolean;
  get(key: string): Json | undefined;
  set(key: string, value: Json): void;
  /** A starting value, not a change (from the database, when there is no document). */
  seed(key: string, value: Json | undefined): void;
  /** The values as they are now, for a later `write`; clears `dirty`. */
  take(): Record<string, Json>;
  write(values: Record<string, Json>): Promise<void>;
}

class DocumentFile implements Adapter<Document> {
  /** Whether the last read found a document of this format. */
  found = false;

  constructor(private readonly path: string) {}

  async read(): Promise<Document | null> {
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (err) {
      if (errnoCode(err) === "ENOENT") return null;
      throw new StateError("state_unreadable", `cannot read ${this.path}: ${String(err)}`, {
        cause: err,
        file: this.path,
      });
    }
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (err) {
      throw new StateError(
        "state_corrupt",
        `${this.path} is not valid JSON: restore it from a backup, or move it aside (the next sync then reads the streams again from their start, which duplicates nothing)`,
        {
          cause: err,
          file: this.path,
        },
      );
    }
    // Another document here (the store before this one, kept as .bak once imported): not ours.
    if (!isDocument(doc)) return null;
    this.found = true;
    return doc;
  }

  write(doc: Document): Promise<void> {
    return writeFileAtomic(this.path, `${JSON.stringify(doc, null, 2)}\n`);
  }
}

function isDocument(doc: unknown): doc is Document {
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return false;
  const { format, values } = doc as Record<string, unknown>;
  return (
    format === DOCUMENT_FORMAT && typeof values === "object" && values !== null && !Array.isArray(values)
  );
}

export async function openSavedCursors(
  path: string,
  readOnly: boolean,
  opts: { ignore: boolean },
): Promise<SavedCursors> {
  const file = new DocumentFile(path);
  const low = new Low<Document>(file, { format: DOCUMENT_FORMAT, version: 1, values: {} });
  if (!opts.ignore) await low.read();
  const fresh = !file.found;
  const values: Record<string, Json> = { ...low.data.values };
  let dirty = false;
  return {
    fresh,
    get dirty() {
      return dirty;
    },
    get: (key) => values[key],
    set: (key, value) => {
      values[key] = value;
      dirty = true;
    },
    seed: (key, value) => {
      if (value !== undefined) values[key] = value;
    },
    take: () => {
      dirty = false;
      return { ...values };
    },
    write: async (taken) => {
      if (readOnly)
        throw new StateError("state_write_failed", `${path} was opened read-only`, { file: path });
      low.data = { format: DOCUMENT_FORMAT, version: 1, values: taken };
      await low.write();
    },
  };
}
