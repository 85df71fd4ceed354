import { readdir, readFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import { errnoCode, StateError } from "../state/errors.js";
import { crcHex, ParsedJson } from "./packs.js";
import { newRows, type StoreView } from "./snapshot.js";

/**
 * The journals of the store before SQLite, `<path>.journal.<gen>`: a line a commit, `<crc32 hex of
 * the JSON> <json>\n`, the JSON `{"s": commit number, "c": changes, "m": meta keys set}`. A commit
 * was fsynced before it resolved and appends ran one at a time, so only the newest journal's last
 * line can be torn (a crash mid-append): everything from the first line that is not whole and
 * valid on is skipped there. Anywhere else such a line, or a gap in the commit numbers, is damage.
 */

const Change = z.union([
  z.tuple([z.literal("s"), z.string(), z.string(), ParsedJson]),
  z.tuple([z.literal("d"), z.string(), z.string()]),
]);
const Entry = z.object({ s: z.int().positive(), c: z.array(Change), m: z.record(z.string(), ParsedJson) });
type Entry = z.infer<typeof Entry>;

/** The journal files beside `path`, generation ascending. */
export async function journalsOf(path: string): Promise<{ gen: number; file: string }[]> {
  const prefix = `${basename(path)}.journal.`;
  const names = await readdir(dirname(path)).catch((err: unknown) => {
    if (errnoCode(err) === "ENOENT") return [];
    throw err;
  });
  return names
    .filter((name) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)))
    .map((name) => ({ gen: Number(name.slice(prefix.length)), file: join(dirname(path), name) }))
    .sort((a, b) => a.gen - b.gen);
}

/** A line's commit, or null when the line is torn or damaged (checksum, JSON or shape). */
function entryOf(line: string): Entry | null {
  const json = line.slice(9);
  if (line[8] !== " " || crcHex(json) !== line.slice(0, 8)) return null;
  try {
    const entry = Entry.safeParse(JSON.parse(json), { jitless: true });
    return entry.success ? entry.data : null;
  } catch {
    return null;
  }
}

/** A journal's commits up to its first line that is not whole and valid, and what follows them. */
function readJournal(text: string): { entries: Entry[]; torn: boolean; damaged: boolean } {
  const entries: Entry[] = [];
  let start = 0;
  for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n", start)) {
    const entry = entryOf(text.slice(start, end));
    if (entry === null) break;
    entries.push(entry);
    start = end + 1;
  }
  // A torn append leaves a prefix of one line: at most its own newline, at the very end.
  const newline = text.indexOf("\n", start);
  return { entries, torn: start < text.length, damaged: newline >= 0 && newline < text.length - 1 };
}

function corrupt(file: string, what: string): StateError {
  return new StateError(
    "state_corrupt",
    `state journal ${file} ${what}; it was left untouched: restore the state from a backup, or move the state files aside and run \`threatbridge reconcile\` to rebuild the mapping`,
    { file },
  );
}

/**
 * Applies the journals' commits after the snapshot to `view`, in order. Journals of a generation
 * before the snapshot's are inside it (a compaction crashed before deleting them): not read. A
 * commit the view holds already is skipped. Reads only.
 */
export async function replayJournals(path: string, view: StoreView): Promise<void> {
  const live = (await journalsOf(path)).filter(({ gen }) => gen >= view.gen);
  for (const [i, { file }] of live.entries()) {
    const text = await readFile(file, "utf8").catch((err: unknown) => {
      throw errnoCode(err) === "ENOENT" ? corrupt(file, "vanished while it was being read") : err;
    });
    const read = readJournal(text);
    if (read.damaged || (read.torn && i < live.length - 1))
      throw corrupt(file, "has a damaged line before its end");
    for (const entry of read.entries) {
      if (entry.s <= view.seq) continue;
      if (entry.s !== view.seq + 1) throw corrupt(file, `skips from commit ${view.seq} to ${entry.s}`);
      for (const change of entry.c) {
        let rows = view.collections.get(change[1]);
        if (change[0] === "d") rows?.delete(change[2]);
        else {
          if (rows === undefined) view.collections.set(change[1], (rows = newRows(change[1])));
          rows.set(change[2], change[3]);
        }
      }
      for (const [key, value] of Object.entries(entry.m)) view.meta.set(key, value);
      view.seq = entry.s;
    }
  }
}
