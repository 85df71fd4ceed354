import { crc32 } from "node:zlib";
import { StateError } from "../state/errors.js";
import type { Json } from "./journal-line.js";
import type { Rows } from "./rows.js";
import { RowError } from "./snapshot-threat-codec.js";
import { unpackRows } from "./threat-compact.js";

/**
 * A `raw-pack` collection (the groups) as a store version 7 snapshot holds it: its pack is checked
 * at load (the CRC-32 of its compressed bytes, `crc`), and its rows are unpacked the first time the
 * collection is read. `status` never reads the groups (their unpacking and checking was ~25 ms of
 * its load at 100,000 threats with every feature on), and a compaction that finds them unread
 * writes the same pack again.
 */

/** The CRC-32 (hex) of a pack's compressed bytes (`<bytes>:<base64>`, threat-compact.ts packText). */
export function packCrc(pack: string): string {
  return crc32(Buffer.from(pack.slice(pack.indexOf(":") + 1), "base64"))
    .toString(16)
    .padStart(8, "0");
}

export class PackedRows implements Rows {
  private rows: Map<string, Json> | null = null;

  private constructor(
    private readonly name: string,
    /** The pack as loaded; null once unpacked (the rows may change from then on). */
    private pack: string | null,
  ) {}

  /** The collection `name` of a snapshot; RowError when its pack does not match its CRC-32. */
  static load(name: string, pack: string, crc: string): PackedRows {
    if (packCrc(pack) !== crc) throw new RowError("its pack does not match its CRC-32");
    return new PackedRows(name, pack);
  }

  /** The pack to write again, when the rows were never read (so never changed); else null. */
  get unread(): string | null {
    return this.pack;
  }

  get size(): number {
    return this.map().size;
  }

  get(key: string): Json | undefined {
    return this.map().get(key);
  }

  has(key: string): boolean {
    return this.map().has(key);
  }

  set(key: string, value: Json): this {
    this.map().set(key, value);
    return this;
  }

  delete(key: string): boolean {
    return this.map().delete(key);
  }

  entries(): IterableIterator<[string, Json]> {
    return this.map().entries();
  }

  keys(): IterableIterator<string> {
    return this.map().keys();
  }

  /** A copy later changes do not affect: the same pack while unread. */
  copy(): Rows {
    return this.pack !== null ? new PackedRows(this.name, this.pack) : new Map(this.map());
  }

  private map(): Map<string, Json> {
    if (this.rows !== null) return this.rows;
    const pack = this.pack ?? "";
    try {
      this.rows = new Map(unpackRows(pack, `collection ${this.name}`));
    } catch (err) {
      // Checked at load (its CRC-32), a pack that does not unpack now was written so.
      throw new StateError(
        "state_corrupt",
        `the state's ${this.name} do not decode (${err instanceof Error ? err.message : String(err)}); restore the state file from a backup, or move it aside and run \`threatbridge reconcile\``,
        { cause: err },
      );
    }
    this.pack = null;
    return this.rows;
  }
}
