import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * BENCHMARKS.md opens with one table of today's figures, each row naming where in
 * docs/benchmarks-history.md (the runs, kept verbatim) it comes from, so a reader can check it.
 */

const ROOT = resolve(import.meta.dirname, "../..");
const read = (name: string): Promise<string> => readFile(join(ROOT, name), "utf8");

/** The cells of each row of the first Markdown table (header and separator dropped). */
function firstTable(markdown: string): { header: string[]; rows: string[][] } {
  const lines = markdown.split("\n");
  const start = lines.findIndex((l) => l.startsWith("|"));
  const end = lines.findIndex((l, i) => i > start && !l.startsWith("|"));
  const cells = (l: string): string[] =>
    l
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
  const table = lines.slice(start, end === -1 ? undefined : end).map(cells);
  return { header: table[0] ?? [], rows: table.slice(2) };
}

describe("BENCHMARKS.md", () => {
  it("opens with one table: measure, target, value, date, machine and the history section of each row", async () => {
    const text = await read("BENCHMARKS.md");
    // The table comes before any section: nothing but the introduction above it.
    expect(text.indexOf("\n|")).toBeLessThan(text.indexOf("\n## "));
    const { header, rows } = firstTable(text);
    expect(header.map((h) => h.split(/[ ,(]/)[0])).toEqual([
      "measure",
      "target",
      "value",
      "date",
      "machine",
      "from",
    ]);
    expect(rows.length).toBeGreaterThanOrEqual(12);
    const history = await read("docs/benchmarks-history.md");
    const headings = [...history.matchAll(/^#{2,3} (.+)$/gm)].map((m) => m[1] ?? "");
    for (const row of rows) {
      const [measure = "", target = "", value = "", date = "", machine = "", from = ""] = row;
      expect(measure).not.toBe("");
      expect(target, measure).not.toBe("");
      expect(value, measure).not.toBe("");
      expect(date, measure).toMatch(/^2026-\d{2}-\d{2}/);
      expect(machine, measure).toMatch(/2-core/);
      // "Section title…", then maybe the build: a heading of the history starts with the quoted title.
      const section = /^"([^"]+)"/.exec(from)?.[1] ?? "";
      expect(
        headings.some((h) => h.startsWith(section)),
        `${measure}: no section "${section}"`,
      ).toBe(true);
      expect(section, measure).not.toBe("");
    }
  });

  it("has a marked section for today's figures below the table", async () => {
    const text = await read("BENCHMARKS.md");
    expect(text).toMatch(/^## 2026-11-26$/m);
    expect(text.indexOf("## 2026-11-26")).toBeGreaterThan(text.lastIndexOf("\n|"));
  });

  it("the history keeps every earlier run, with a first line saying what it is", async () => {
    const history = await read("docs/benchmarks-history.md");
    expect(history.split("\n")[0]).toMatch(/^> The measurement history of threatbridge/);
    expect(history.split("\n").length).toBeGreaterThan(1000);
    for (const kept of [
      "## How each figure was obtained",
      "## Raw output of the BEFORE run",
      "## Re-running",
    ]) {
      expect(history).toContain(kept);
    }
  });
});
