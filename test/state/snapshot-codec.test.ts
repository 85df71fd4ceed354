import { describe, expect, it } from "vitest";
import {
  decodeSnapshot,
  SnapshotFormatError,
  STORE_FORMAT,
  STORE_FORMAT_VERSION,
} from "../../src/state/snapshot-codec.js";

/** A snapshot document holding one raw collection with these rows. */
function doc(rows: unknown): unknown {
  return {
    format: STORE_FORMAT,
    version: STORE_FORMAT_VERSION,
    gen: 1,
    seq: 3,
    meta: {},
    collections: { assets: { codec: "raw", rows } },
  };
}

describe("a snapshot's raw collections (src/state/README-store.md: the snapshot is the store of record)", () => {
  it("are read back as [key, value] rows, any JSON value included", () => {
    const rows = [
      ["a1", { name: "web-1", type: "host", deleted: false, updatedAt: "t" }],
      ["a2", null],
      ["a3", [1, "x"]],
    ];
    const view = decodeSnapshot(doc(rows));
    expect([...(view.collections.get("assets")?.entries() ?? [])]).toEqual(rows);
    expect(view.seq).toBe(3);
  });

  it("refuse a row that is not a [key, value] pair: the file is damaged, not read in part", () => {
    for (const bad of [
      [["a1"]],
      [["a1", 1, 2]],
      [[7, { name: "x" }]],
      [{ a1: 1 }],
      [["a1", 1], "a2"],
      { a1: 1 },
    ]) {
      expect(() => decodeSnapshot(doc(bad)), JSON.stringify(bad)).toThrow(SnapshotFormatError);
    }
  });
});
