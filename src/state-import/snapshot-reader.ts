import { StateError } from "../state/errors.js";
import { SnapshotFormatError, decodeSnapshot, type StoreView } from "./snapshot-codec.js";
import type { StoreFs } from "./store-fs.js";

const LEFT_UNTOUCHED =
  "it was left untouched: restore it from a backup, or move it aside and run `threatbridge reconcile` to rebuild the mapping";

/**
 * Reads the snapshot of the store before SQLite (snapshot-codec.ts; the newest format only, as
 * index.ts checks first). Writes nothing.
 */
export class SnapshotReader {
  constructor(
    readonly path: string,
    private readonly fs: StoreFs,
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
    if (read === null) return null;
    let text: string | null = read.text;
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
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
