// The scale bench of BENCHMARKS.md's targets: the BUILT CLI (`node dist/cli.js`) in child processes,
// black-box, against the simulator and the GitHub stand-in of bench/scale-fixture.mjs, so that it
// measures whichever engine is built. Prints Markdown: the machine, then one row per figure with
// how it was obtained, and the load average around each scenario (the machine may be shared).
//
// Usage: node bench/engine-scale.mjs [--quick] [--only 1,2,...] [--commit-sizes 1000,100000]
//          [--mapped 100000,300000] [--idle 20000,50000] [--stream 1000000] [--stream-max-s 540]
//          [--new 2000]
// --quick: small sizes, a few minutes (what `npm run bench` runs). Without it: the targets' sizes,
// except the stream, which is bounded by --stream-max-s (see BENCHMARKS.md).
import { readFileSync } from "node:fs";
import os from "node:os";
import { parseArgs } from "node:util";
import {
  mappedRows,
  scenarioCommit,
  scenarioIdle,
  scenarioMapped,
  scenarioNewIssue,
  scenarioStream,
} from "./engine-scale-scenarios.mjs";

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    only: { type: "string" },
    "commit-sizes": { type: "string" },
    mapped: { type: "string" },
    idle: { type: "string" },
    stream: { type: "string" },
    "stream-max-s": { type: "string" },
    new: { type: "string" },
  },
});
const quick = values.quick;
const list = (s, dflt) => (s ?? dflt).split(",").map(Number);
const sizes = {
  commit: list(values["commit-sizes"], quick ? "1000,10000" : "1000,100000"),
  mapped: list(values.mapped, quick ? "10000,30000" : "100000,300000"),
  idle: list(values.idle, quick ? "5000,20000" : "20000,50000"),
  stream: Number(values.stream ?? (quick ? 20_000 : 1_000_000)),
  streamMaxS: Number(values["stream-max-s"] ?? (quick ? 60 : 540)),
  newIssue: Number(values.new ?? (quick ? 500 : 2000)),
};
const only = new Set(list(values.only, "1,2,3,4,5,6,7"));

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const model = /model name\s*:\s*(.*)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? "unknown";
console.log(`\n## engine scale — ${new Date().toISOString()}${quick ? " (--quick)" : ""}\n`);
console.log(
  `machine: ${os.cpus().length} × ${model}, ${Math.round(os.totalmem() / 2 ** 30)} GB RAM, node ${process.version}; load average at start ${load()}`,
);
console.log(`command: node bench/engine-scale.mjs ${process.argv.slice(2).join(" ")}\n`);

function row(r, loadBefore) {
  console.log(`| ${r.measure} | ${r.value} | ${r.how} | ${loadBefore} → ${load()} |`);
}

if (only.has(1)) {
  console.log(`### 1. intent made durable (bench/state-store.mjs, load ${load()})\n`);
  console.log(scenarioCommit(sizes.commit));
  console.log("");
}
console.log("| measure | now | how | load average before → after |");
console.log("|---|---|---|---|");
if (only.has(2) || only.has(3) || only.has(6)) {
  for (const n of sizes.mapped) {
    const before = load();
    const r = await scenarioMapped(n);
    for (const line of mappedRows(r)) row(line, before);
  }
}
if (only.has(5)) {
  for (const n of sizes.idle) {
    const before = load();
    row(await scenarioIdle(n), before);
  }
}
if (only.has(7)) {
  const before = load();
  row(await scenarioNewIssue(sizes.newIssue), before);
}
if (only.has(4)) {
  const before = load();
  row(await scenarioStream(sizes.stream, sizes.streamMaxS), before);
}
