#!/usr/bin/env node
// The shape of a source folder from its static imports: `node scripts/import-layers.mjs [src/sync]`.
// Rooms are the folder's direct children (a subfolder or a file). Floors are found by peeling: the
// rooms that import no remaining room stand on the lowest floor left, and so on up; where a loop of
// rooms leaves none such, the room that imports the fewest remaining rooms' files is taken as the
// next floor (a greedy cut of the loop). An import from a lower floor to a higher one "runs back up"
// against the flow. File-level import circles are listed too (Tarjan). Prints JSON; `--list` adds
// every import that runs back up.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

const args = process.argv.slice(2);
const list = args.includes("--list");
const root = resolve(args.find((a) => !a.startsWith("--")) ?? "src/sync");

/** Every .ts file under `dir`. */
function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["'](\.[^"']+)["']/g;

/** The files of this tree a file imports (type-only imports too: they are arrows all the same). */
function importsOf(file) {
  const text = readFileSync(file, "utf8");
  const out = new Set();
  for (const match of text.matchAll(IMPORT)) {
    const target = resolve(dirname(file), match[1].replace(/\.js$/, ".ts"));
    if (target.startsWith(root + sep)) out.add(target);
  }
  return [...out];
}

const all = files(root);
const roomOf = (file) => relative(root, file).split(sep)[0];
const edges = all.flatMap((file) => importsOf(file).map((target) => ({ from: file, to: target })));
const roomEdges = edges.filter((e) => roomOf(e.from) !== roomOf(e.to));

// Floors by peeling sinks; a loop is cut at the room with the fewest imports into the rest.
const floorOf = new Map();
const left = new Set(all.map(roomOf));
for (let floor = 1; left.size > 0; floor += 1) {
  const outInto = (room) =>
    roomEdges.filter((e) => roomOf(e.from) === room && left.has(roomOf(e.to)) && roomOf(e.to) !== room)
      .length;
  let level = [...left].filter((room) => outInto(room) === 0);
  if (level.length === 0)
    level = [[...left].sort((a, b) => outInto(a) - outInto(b) || a.localeCompare(b))[0]];
  for (const room of level) {
    floorOf.set(room, floor);
    left.delete(room);
  }
}
const backUp = roomEdges.filter((e) => floorOf.get(roomOf(e.from)) < floorOf.get(roomOf(e.to)));

// File-level circles (strongly connected components of more than one file, or a self-import).
const next = new Map(all.map((f) => [f, []]));
for (const e of edges) next.get(e.from).push(e.to);
let index = 0;
const idx = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const circles = [];
function connect(v) {
  idx.set(v, index);
  low.set(v, index);
  index += 1;
  stack.push(v);
  onStack.add(v);
  for (const w of next.get(v) ?? []) {
    if (!idx.has(w)) {
      connect(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
  }
  if (low.get(v) !== idx.get(v)) return;
  const component = [];
  let w;
  do {
    w = stack.pop();
    onStack.delete(w);
    component.push(w);
  } while (w !== v);
  if (component.length > 1) circles.push(component.map((f) => relative(root, f)).sort());
}
for (const file of all) if (!idx.has(file)) connect(file);

const floors = {};
for (const [room, floor] of [...floorOf].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])))
  (floors[floor] ??= []).push(room);
const report = {
  folder: relative(process.cwd(), root) || ".",
  files: all.length,
  rooms: floorOf.size,
  imports_between_rooms: roomEdges.length,
  imports_back_up: backUp.length,
  circles: circles.length,
  floors,
  ...(circles.length > 0 ? { circle_files: circles } : {}),
  ...(list
    ? { back_up: backUp.map((e) => `${relative(root, e.from)} -> ${relative(root, e.to)}`).sort() }
    : {}),
};
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
