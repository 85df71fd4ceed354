import { crc32 } from "node:zlib";
import { z } from "zod";

/**
 * One journal line is one commit: `<crc32 hex> <json>\n`. The checksum tells a complete line
 * from a torn one (a crash mid-append may leave a prefix of the line, or garbage blocks, on
 * disk); the newline ends it. `s` numbers commits across all generations, so replay can refuse
 * a gap or skip a repeat instead of applying a commit twice.
 */
export type Json = z.infer<ReturnType<typeof z.json>>;
/**
 * A value that came out of JSON.parse of the store's own text: JSON by construction, so it is not
 * walked again (a recursive z.json() pass over every stored row cost a tenth of the load at 100k).
 * Its shape is checked where it is used (threat-record-guard.ts, the engine's state schema).
 */
export const ParsedJson = z.custom<Json>((value) => value !== undefined, "expected a value");

/**
 * A keyed collection's rows as a snapshot stores them, `[key, value]` pairs, checked by one plain
 * loop: a zod tuple per row cost 20 ms at start for 2,500 assets (docs/benchmarks-history.md, "Start-up"),
 * most of the snapshot's check. A value is ParsedJson, checked where it is used.
 */
export const ParsedRows = z.custom<[string, Json][]>(
  (value) =>
    Array.isArray(value) &&
    value.every(
      (row) => Array.isArray(row) && row.length === 2 && typeof row[0] === "string" && row[1] !== undefined,
    ),
  "expected rows of [key, value]",
);

/** A change to a keyed collection: set a value, or delete the key. */
export const Change = z.union([
  z.tuple([z.literal("s"), z.string(), z.string(), ParsedJson]),
  z.tuple([z.literal("d"), z.string(), z.string()]),
]);
export type Change = z.infer<typeof Change>;

export const JournalEntry = z.object({
  /** Commit sequence number, 1, 2, … across generations. */
  s: z.int().positive(),
  c: z.array(Change),
  /** Meta keys set by this commit. */
  m: z.record(z.string(), ParsedJson),
});
export type JournalEntry = z.infer<typeof JournalEntry>;

function checksum(json: string): string {
  return crc32(json).toString(16).padStart(8, "0");
}

export function encodeLine(entry: JournalEntry): string {
  const json = JSON.stringify(entry);
  return `${checksum(json)} ${json}\n`;
}

/** A parsed line, or null when it is torn or corrupt (checksum, JSON or shape wrong). */
function decodeLine(line: string): JournalEntry | null {
  if (line.length < 10 || line[8] !== " ") return null;
  const json = line.slice(9);
  if (checksum(json) !== line.slice(0, 8)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return null;
  }
  const parsed = JournalEntry.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

interface ReadJournal {
  entries: JournalEntry[];
  /** Bytes of the complete, valid lines: everything after this is a torn tail. */
  validBytes: number;
  /** Whether anything followed the last valid line. */
  torn: boolean;
  /** Whether an invalid line is followed by more lines: damage, not a torn append. */
  damaged: boolean;
}

/**
 * Splits a journal file into its entries. Reading stops at the first line that is not complete
 * and valid: everything from there on is a torn tail whose commit never resolved (an append is
 * fsynced before its commit resolves, and appends run one at a time, so only the last one can
 * be torn). An invalid line with more lines after it is damage (`damaged`), and whether a tail
 * in an older generation is corruption is the caller's call.
 */
export function readJournalText(text: string): ReadJournal {
  const entries: JournalEntry[] = [];
  let validBytes = 0;
  let start = 0;
  while (start < text.length) {
    const end = text.indexOf("\n", start);
    if (end < 0) break;
    const entry = decodeLine(text.slice(start, end));
    if (entry === null) break;
    entries.push(entry);
    validBytes += Buffer.byteLength(text.slice(start, end + 1), "utf8");
    start = end + 1;
  }
  // A torn append leaves a prefix of one line: at most its own newline, at the very end.
  const newline = text.indexOf("\n", start);
  const damaged = newline >= 0 && newline < text.length - 1;
  return { entries, validBytes, torn: start < text.length, damaged };
}
