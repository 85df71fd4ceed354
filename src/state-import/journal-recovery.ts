import { basename, dirname } from "node:path";
import { StateError } from "../state/errors.js";
import { readJournalText, type JournalEntry } from "./journal-line.js";
import type { StoreView } from "./snapshot-codec.js";
import { newRows } from "./rows.js";
import type { StoreFs } from "./store-fs.js";

/** Journal generation `gen` of the store whose snapshot is `path`. */
export function journalPath(path: string, gen: number): string {
  return `${path}.journal.${gen}`;
}

/** The generations of the journal files present beside `path`, ascending. */
async function listGenerations(fs: StoreFs, path: string): Promise<number[]> {
  const prefix = `${basename(path)}.journal.`;
  const gens: number[] = [];
  for (const name of await fs.list(dirname(path))) {
    if (!name.startsWith(prefix)) continue;
    const rest = name.slice(prefix.length);
    if (/^\d+$/.test(rest)) gens.push(Number(rest));
  }
  return gens.sort((a, b) => a - b);
}

function applyEntry(view: StoreView, entry: JournalEntry): void {
  for (const change of entry.c) {
    const [op, collection, key] = change;
    let rows = view.collections.get(collection);
    if (op === "s") {
      if (rows === undefined) {
        rows = newRows(collection);
        view.collections.set(collection, rows);
      }
      rows.set(key, change[3]);
    } else rows?.delete(key);
  }
  for (const [key, value] of Object.entries(entry.m)) view.meta.set(key, value);
  view.seq = entry.s;
}

/**
 * Brings `view` (the snapshot) up to the last durable commit: deletes the journals older than the
 * snapshot (a compaction that crashed between its rename and their deletion), replays the others
 * in order, and cuts a torn tail off the newest one so that the next append starts on a line of
 * its own. A gap in the commit numbers, or a torn line before the newest one, is corruption:
 * nothing is changed then, and the operator is told. `readOnly` changes nothing on disk (a torn
 * tail is only skipped).
 */
export async function recoverJournals(
  fs: StoreFs,
  path: string,
  view: StoreView,
  { readOnly }: { readOnly: boolean },
): Promise<{ gen: number; bytes: number }> {
  const gens = await listGenerations(fs, path);
  if (!readOnly) for (const gen of gens) if (gen < view.gen) await fs.remove(journalPath(path, gen));
  const live = gens.filter((gen) => gen >= view.gen);
  let bytes = 0;
  let tornTail: { file: string; validBytes: number } | null = null;
  for (const [i, gen] of live.entries()) {
    const file = journalPath(path, gen);
    const found = await fs.readText(file);
    // Listed, then gone: a writer's compaction deleted it under this reader (read-only opens
    // read again). With the lock held this cannot happen.
    if (found === null) throw corrupt(file, "vanished while it was being read");
    const text = found.text;
    const read = readJournalText(text);
    const newest = i === live.length - 1;
    if (read.damaged || (read.torn && !newest)) throw corrupt(file, "has a damaged line before its end");
    for (const entry of read.entries) {
      // A commit already in the snapshot is never applied twice.
      if (entry.s <= view.seq) continue;
      if (entry.s !== view.seq + 1) throw corrupt(file, `skips from commit ${view.seq} to ${entry.s}`);
      applyEntry(view, entry);
    }
    bytes += read.validBytes;
    if (read.torn) tornTail = { file, validBytes: read.validBytes };
  }
  if (tornTail !== null && !readOnly) {
    await fs.truncate(tornTail.file, tornTail.validBytes);
    const handle = await fs.open(tornTail.file, "append");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
  return { gen: Math.max(view.gen, live.at(-1) ?? 0), bytes };
}

function corrupt(file: string, what: string): StateError {
  return new StateError(
    "state_corrupt",
    `state journal ${file} ${what}; it was left untouched: restore the state from a backup, or move the state files aside and run \`threatbridge reconcile\` to rebuild the mapping`,
    { file },
  );
}
