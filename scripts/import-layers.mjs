#!/usr/bin/env node
// The shape of a source folder from its static imports: `node scripts/import-layers.mjs [src/sync]`.
// Rooms are the folder's direct children (a subfolder or a file). Floors are found by peeling: the
// rooms that import no remaining room stand on the lowest floor left, and so on up; where a loop of
// rooms leaves none such, the room that imports the fewest remaining rooms' files is taken as the
// next floor (a greedy cut of the loop). An import from a lower floor to a higher one "runs back up"
// against the flow. File-level import circles are listed too (Tarjan). Prints JSON; `--list` adds
// every import that runs back up.
//
// `--check PAGE.md` holds a page's stated layers against the code: each fenced block
// "```layers FOLDER" lists the folder's floors from the top, one floor a line (its rooms separated
// by spaces), and an optional "```layers-back-up FOLDER" block lists the imports allowed to run back
// up (`from -> to`, relative to FOLDER). Folders are relative to the working directory. Exits 1,
// saying what differs and printing the blocks as the code has them, when a room is missing, gone or
// on another floor, when the imports back up differ from the list, or on an import circle.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

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
function importsOf(root, file) {
  const text = readFileSync(file, "utf8");
  const out = new Set();
  for (const match of text.matchAll(IMPORT)) {
    const target = resolve(dirname(file), match[1].replace(/\.js$/, ".ts"));
    if (target.startsWith(root + sep)) out.add(target);
  }
  return [...out];
}

/** The rooms of `root`, their floors, the imports back up and the file-level circles. */
function analyse(root) {
  const all = files(root);
  const roomOf = (file) => relative(root, file).split(sep)[0];
  const edges = all.flatMap((file) => importsOf(root, file).map((target) => ({ from: file, to: target })));
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
  return { all, floorOf, backUp, circles, roomOf, roomEdges };
}

/** Floors from the top, each a sorted list of its rooms. */
function floorsTopDown(floorOf) {
  const byFloor = new Map();
  for (const [room, floor] of floorOf) byFloor.set(floor, [...(byFloor.get(floor) ?? []), room]);
  return [...byFloor].sort((a, b) => b[0] - a[0]).map(([, rooms]) => rooms.sort());
}

/** The stated blocks of a page: folder → floors from the top, and folder → imports back up. */
function statedLayers(text) {
  const layers = new Map();
  const backUp = new Map();
  for (const match of text.matchAll(/^```(layers|layers-back-up) +(\S+)\n([\s\S]*?)^```/gm)) {
    const lines = match[3]
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "");
    if (match[1] === "layers")
      layers.set(
        match[2],
        lines.map((line) => line.split(/\s+/)),
      );
    else
      backUp.set(
        match[2],
        lines.map((line) => line.replace(/\s*->\s*/, " -> ")),
      );
  }
  return { layers, backUp };
}

/** What differs between the page's blocks for `folder` and its imports (an empty list: none). */
function differences(folder, statedFloors, statedBackUp) {
  const { floorOf, backUp, circles } = analyse(resolve(folder));
  const problems = [];
  const stated = new Map();
  statedFloors.forEach((rooms, i) => {
    for (const room of rooms) stated.set(room, statedFloors.length - i);
  });
  for (const [room, floor] of floorOf) {
    if (!stated.has(room)) problems.push(`${folder}: room ${room} is not on the page`);
    else if (stated.get(room) !== floor)
      problems.push(
        `${folder}: room ${room} stands on floor ${floor} from the bottom, the page says ${stated.get(room)}`,
      );
  }
  for (const room of stated.keys())
    if (!floorOf.has(room)) problems.push(`${folder}: room ${room} is on the page but not in the code`);
  const found = backUp.map((e) =>
    `${relative(resolve(folder), e.from)} -> ${relative(resolve(folder), e.to)}`.split(sep).join("/"),
  );
  for (const edge of found)
    if (!statedBackUp.includes(edge)) problems.push(`${folder}: import back up not on the page: ${edge}`);
  for (const edge of statedBackUp)
    if (!found.includes(edge))
      problems.push(`${folder}: the page lists ${edge}, which the code no longer has`);
  for (const circle of circles) problems.push(`${folder}: import circle: ${circle.join(", ")}`);
  const blocks = [
    "```layers " + folder,
    ...floorsTopDown(floorOf).map((rooms) => rooms.join(" ")),
    "```",
    ...(found.length > 0 ? ["", "```layers-back-up " + folder, ...found.sort(), "```"] : []),
  ].join("\n");
  return { problems, blocks };
}

const args = process.argv.slice(2);
const checkAt = args.indexOf("--check");
if (checkAt >= 0) {
  const page = args[checkAt + 1];
  if (page === undefined) {
    process.stderr.write("usage: node scripts/import-layers.mjs --check PAGE.md\n");
    process.exit(2);
  }
  const { layers, backUp } = statedLayers(readFileSync(page, "utf8"));
  if (layers.size === 0) {
    process.stderr.write(`${page}: no \`\`\`layers FOLDER block states a layer order\n`);
    process.exit(1);
  }
  let failed = false;
  for (const [folder, floors] of layers) {
    const { problems, blocks } = differences(folder, floors, backUp.get(folder) ?? []);
    if (problems.length === 0) {
      process.stdout.write(`${page}: the layers of ${folder} match its imports (${floors.length} floors)\n`);
      continue;
    }
    failed = true;
    process.stderr.write(
      `${page} and the imports of ${folder} disagree:\n${problems.map((p) => `  ${p}\n`).join("")}`,
    );
    process.stderr.write(`As the code has them:\n${blocks}\n`);
  }
  for (const folder of backUp.keys())
    if (!layers.has(folder)) {
      failed = true;
      process.stderr.write(`${page}: a layers-back-up block for ${folder} has no layers block\n`);
    }
  process.exit(failed ? 1 : 0);
}

const list = args.includes("--list");
const root = resolve(args.find((a) => !a.startsWith("--")) ?? "src/sync");
const { all, floorOf, backUp, circles, roomEdges } = analyse(root);
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
