#!/usr/bin/env node
// The weight of comments in the source: lines that start, after white space, with `//`, `/*` or
// `*`, over every line of the .ts files under a folder (src by default). Prints the ratio and
// exits 1 above the limit (13 %, `--max PERCENT`), so comments stay the contract of the code and
// its reasons, and the story of how it got here stays in the history and the commit messages.
// `--by-folder` adds each folder's own figures, largest comment count first.
// Usage: node scripts/comment-ratio.mjs [FOLDER] [--max PERCENT] [--by-folder]
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { max: { type: "string", default: "13" }, "by-folder": { type: "boolean", default: false } },
});
const root = positionals[0] ?? "src";
const max = Number(values.max);
if (!Number.isFinite(max) || max < 0 || max > 100) {
  process.stderr.write(`--max takes a percentage from 0 to 100, not ${values.max}\n`);
  process.exit(2);
}

/** Every .ts file under `dir`. */
function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

const COMMENT = /^\s*(\/\/|\/\*|\*)/;
let lines = 0;
let comments = 0;
const byFolder = new Map();
for (const file of files(root)) {
  const text = readFileSync(file, "utf8");
  const all = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
  const own = all.filter((line) => COMMENT.test(line)).length;
  lines += all.length;
  comments += own;
  const folder = relative(".", dirname(file));
  const tally = byFolder.get(folder) ?? { lines: 0, comments: 0 };
  tally.lines += all.length;
  tally.comments += own;
  byFolder.set(folder, tally);
}

const percent = (part, whole) => (whole === 0 ? 0 : (100 * part) / whole);
const ratio = percent(comments, lines);
if (values["by-folder"])
  for (const [folder, tally] of [...byFolder].sort((a, b) => b[1].comments - a[1].comments))
    process.stdout.write(
      `${folder}: ${tally.comments} of ${tally.lines} (${percent(tally.comments, tally.lines).toFixed(1)} %)\n`,
    );
const line = `comment lines in ${root}: ${comments} of ${lines} (${ratio.toFixed(1)} %), at most ${max} %`;
if (ratio > max) {
  process.stderr.write(`${line}: too many; keep comments to what the code promises and why\n`);
  process.exit(1);
}
process.stdout.write(`${line}\n`);
