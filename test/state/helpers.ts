import fc from "fast-check";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import type { Json } from "../../src/state/journal-line.js";
import { PackedSliceColumn } from "../../src/state/slice-pack.js";
import { unpackBytes } from "../../src/state/threat-compact.js";
import {
  BINARY_COLUMNS,
  binaryColumn,
  columnBytes,
  unpackColumns,
  type BinaryColumns,
} from "../../src/state/column-pack.js";

/** A fresh temporary directory per test, removed afterwards. */
export async function withTempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "threatbridge-state-"));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * A record's `slices` (ThreatRecord.slices: an opaque string per plug-in feature name), of every
 * shape the table must give back equal: the empty string, unicode, long strings, many features,
 * and names an object treats specially (`__proto__`, `constructor`, the empty name). Built with
 * Object.fromEntries so that `__proto__` is an own key, as JSON.parse makes it.
 */
export const slicesArbitrary: fc.Arbitrary<Record<string, string>> = fc
  .uniqueArray(
    fc.tuple(
      fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom("notes", "project") },
        {
          weight: 1,
          arbitrary: fc.constantFrom("__proto__", "constructor", "toString", "", "a\u0000b", "é"),
        },
        { weight: 1, arbitrary: fc.string() },
      ),
      fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom("h=1a2b3c;c=IC_kwDOA123", "i=PVTI_lADOB;f=PVTF_x") },
        { weight: 1, arbitrary: fc.constantFrom("", "\u{1F600} ünïcödé \u2028", "x".repeat(5_000)) },
        { weight: 2, arbitrary: fc.string({ unit: "grapheme" }) },
        { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 12 }) },
      ),
    ),
    { minLength: 1, maxLength: 12, selector: ([name]) => name },
  )
  .map((entries) => Object.fromEntries(entries));

/** A JSON value deflated as the snapshot packs it (threat-compact.ts `packText`), synchronously. */
export function packedSync(value: Json): string {
  const text = Buffer.from(JSON.stringify(value));
  return `${text.length}:${deflateSync(text).toString("base64")}`;
}

/**
 * The columns a `threat-8` block packs together (`colPack`), by name, each as threat-7 writes it
 * (its binary columns as arrays, null where a cell says none).
 */
export function colPackOf(block: Record<string, Json>): Record<string, Json> {
  const columns = unpackColumns(unpackBytes(block["colPack"] as string, "colPack"));
  return Object.fromEntries(
    Object.entries(columns).map(([name, column]) => [
      name,
      column instanceof Float64Array
        ? Array.from(column, (v) => (Number.isNaN(v) ? null : v))
        : column instanceof Int32Array
          ? Array.from(column, (v) => (v === -1 ? null : v))
          : (column as Json),
    ]),
  );
}

/** A `colPack` of these columns (as threat-7 writes them), its columns of numbers binary. */
export function colPackSync(columns: Record<string, Json>): string {
  const binary: BinaryColumns = {};
  const others: Record<string, Json> = {};
  for (const [name, column] of Object.entries(columns)) {
    if (Object.hasOwn(BINARY_COLUMNS, name) && Array.isArray(column))
      binary[name as keyof BinaryColumns] = binaryColumn(name as keyof BinaryColumns, column);
    else others[name] = column;
  }
  const bytes = columnBytes(others, binary);
  return `${bytes.length}:${deflateSync(bytes).toString("base64")}`;
}

/**
 * A `threat-8` block turned into the `threat-7` form in place (the store version 6 wrote): the
 * columns of its colPack in the block itself, its slice columns as one slicePack.
 */
export function asThreat7(block: Record<string, Json>): Record<string, Json> {
  if (block["codec"] !== "threat-8") return block;
  block["codec"] = "threat-7";
  if (typeof block["colPack"] === "string") Object.assign(block, colPackOf(block));
  delete block["colPack"];
  const packs = block["slicePacks"];
  if (Array.isArray(packs)) {
    const names = block["sliceNames"] as string[];
    const count = (block["ids"] as Json[]).length;
    const columns = packs.map((pack, k) =>
      PackedSliceColumn.parse(names[k] ?? "", String(pack), count).all(),
    );
    block["slicePack"] = packedSync(columns);
  }
  delete block["slicePacks"];
  return block;
}
