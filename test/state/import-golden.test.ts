import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importLegacyState, type ImportTarget } from "../../src/state-import/index.js";

/**
 * The importer writes exactly what the old store's own importer wrote. Each golden file
 * (fixtures/golden/<name>.jsonl) is what that importer, the old store's whole read side, wrote
 * into its target for the fixture of the same name, in order: a row a line, `[collection, key,
 * value]`, then `["meta", key, value]`. The fixtures were written by the old store itself:
 * - threat-8: a `sync` with grouping, an SLA and notes on (13 threats).
 * - threat-8-rich: ~250 threats with every feature's data (SLAs with breaches and milestones,
 *   occurrences, recurredFrom, acceptances, three features' slices, one with a lone surrogate,
 *   records the old table kept whole, keys in other orders), groups, queue entries with person
 *   changes and pending views, intents, retry sets, assets, cursors and watermarks; a journal of a
 *   generation older than the snapshot (skipped), two live generations, a torn last line.
 * - threat-8-codec: the old store's codec fixture (slice tags, a rawPack, a `json` slice column).
 * - threat-4-v3 and threat-4-v6: a state without workflow data, which the previous release writes
 *   as store version 3 (codec `threat-4`), and as version 6 when it has groups (a `raw-pack`):
 *   34 threats (issues with and without id, link and asset, on two bases; two records the table
 *   kept whole), assets, queue, intents, retry sets and cursors, a snapshot with two live journal
 *   generations after it (a compaction cut short). Their golden files are what the previous
 *   release's store, opened read-only on the same files, gave back: each collection's entries in
 *   its order, then the meta.
 */

const FIXTURES = join(import.meta.dirname, "fixtures");

/** What an import of `path` writes into its target, as the golden files hold it. */
async function importedText(path: string): Promise<string> {
  const lines: string[] = [];
  const meta: string[] = [];
  let begun = false;
  const target: ImportTarget = {
    rows: (collection) => ({ set: (key, value) => lines.push(JSON.stringify([collection, key, value])) }),
    setMeta: (key, value) => meta.push(JSON.stringify(["meta", key, value])),
    begin: () => {
      begun = true;
    },
  };
  expect(await importLegacyState(path, target, { readOnly: true })).toBe(true);
  expect(begun).toBe(true);
  return `${[...lines, ...meta].join("\n")}\n`;
}

describe("the import writes the same rows, meta and JSON text as the old store's importer", () => {
  for (const name of [
    "threat-8",
    "threat-8-rich",
    "threat-8-codec",
    "threat-8-edges",
    "threat-4-v3",
    "threat-4-v6",
  ])
    it(`${name}: every row and meta value, in the same order, byte for byte`, async () => {
      const golden = await readFile(join(FIXTURES, "golden", `${name}.jsonl`), "utf8");
      const imported = await importedText(join(FIXTURES, name, "state.json"));
      // Line by line first, so that a difference names its row.
      expect(imported.split("\n")).toEqual(golden.split("\n"));
      expect(imported).toBe(golden);
    });
});
