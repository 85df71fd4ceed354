import { readdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * docs/operations.md's troubleshooting table quotes the program's messages word for word, `…`
 * standing for what the program fills in. Each quoted piece between two `…` must be the program's
 * own text: found in the strings of src/, or joined from at most three of them (a message and the
 * hint the program appends to it). A message reworded in the code fails here until the table
 * follows.
 */

const ROOT = resolve(import.meta.dirname, "../..");
/** The most program strings one quoted piece may be joined from. */
const MAX_JOINED = 3;

/** Every string literal and every fixed part of a template literal in src/, as the program has it. */
async function programTexts(): Promise<string> {
  const texts: string[] = [];
  const entries = await readdir(join(ROOT, "src"), { withFileTypes: true, recursive: true });
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
    const file = join(entry.parentPath, entry.name);
    const source = ts.createSourceFile(file, await readFile(file, "utf8"), ts.ScriptTarget.Latest, false);
    const visit = (node: ts.Node): void => {
      if (
        ts.isStringLiteral(node) ||
        ts.isNoSubstitutionTemplateLiteral(node) ||
        ts.isTemplateHead(node) ||
        ts.isTemplateMiddle(node) ||
        ts.isTemplateTail(node)
      )
        texts.push(node.text);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return texts.join("\0");
}

/** The first column's quoted message of each row of the troubleshooting table. */
async function quotedMessages(): Promise<string[]> {
  const page = await readFile(join(ROOT, "docs/operations.md"), "utf8");
  const section = page.split("## Troubleshooting")[1]?.split("\n## ")[0] ?? "";
  const rows = section.split("\n").filter((line) => line.startsWith("| ") && !line.startsWith("| message"));
  return rows
    .map((row) => row.split(" | ")[0]?.replace(/^\| /, "") ?? "")
    .filter((cell) => !/^[-\s|]+$/.test(cell))
    .map(
      (cell) =>
        (/^``\s?(.+?)\s?``|^`([^`]+)`/.exec(cell.trim()) ?? []).slice(1).find((m) => m !== undefined) ??
        `(no quoted message in "${cell.trim()}")`,
    );
}

/**
 * The fewest program strings `piece` is joined from (greedy longest match: any part of a match is
 * a match too), or Infinity when some part of it is in none of them.
 */
function joinedFrom(piece: string, corpus: string): number {
  let count = 0;
  for (let at = 0; at < piece.length; count += 1) {
    let low = at;
    let high = piece.length;
    // The longest `piece.slice(at, end)` found in the corpus.
    while (low < high) {
      const mid = Math.ceil((low + high + 1) / 2);
      if (corpus.includes(piece.slice(at, mid))) low = mid;
      else high = mid - 1;
    }
    if (low === at) return Number.POSITIVE_INFINITY;
    at = low;
  }
  return count;
}

/** The program's texts, parsed from src/ once per file: both cases read the same sources. */
let corpusOnce: Promise<string> | undefined;
const corpusOfProgram = (): Promise<string> => (corpusOnce ??= programTexts());

describe("docs/operations.md, Troubleshooting", () => {
  it("quotes the program's messages word for word (… for what it fills in)", async () => {
    const corpus = await corpusOfProgram();
    const messages = await quotedMessages();
    expect(messages.length).toBeGreaterThan(10);
    const reworded: string[] = [];
    for (const message of messages) {
      for (const piece of message.split("…").map((p) => p.trim())) {
        if (piece.length < 2) continue;
        if (joinedFrom(piece, corpus) > MAX_JOINED) reworded.push(`${piece}  (in: ${message})`);
      }
    }
    expect(reworded).toEqual([]);
  });

  it("a message the program does not say is caught", async () => {
    const corpus = await corpusOfProgram();
    expect(joinedFrom("check the token or the App's permissions", corpus)).toBe(1);
    expect(
      joinedFrom("the token endpoint could not be reached; verify your network settings", corpus),
    ).toBeGreaterThan(MAX_JOINED);
  });
});
