// `npm run bench`: every benchmark, one after the other, with the machine it ran on.
import { execFileSync } from "node:child_process";
import os from "node:os";

const machine = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: `${os.cpus().length} × ${os.cpus()[0]?.model ?? "unknown"}`,
  memoryGb: Math.round(os.totalmem() / 2 ** 30),
  loadAverage: os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" "),
};
console.log(JSON.stringify({ machine }, null, 2));
for (const script of ["bench/platform-walk.mjs", "bench/engine-backfill.mjs", "bench/sync-costs.mjs"]) {
  execFileSync(process.execPath, ["--expose-gc", script], { stdio: "inherit" });
}
// The workflow features' costs (counts of GitHub reads and writes, not times), at the sizes of
// their targets: 10,000 open issues with SLAs, 1,000 acceptances, 10,000 threats in 500 groups,
// related-asset walks of 10,000 threats on 500 assets.
for (const args of [
  ["bench/workflow-costs.mjs"],
  ["bench/acceptance-costs.mjs"],
  ["bench/group-costs.mjs", "10000", "500", "4", "parent"],
  ["bench/group-costs.mjs", "10000", "500", "4", "single"],
  ["bench/related-costs.mjs", "10000", "500"],
]) {
  execFileSync(process.execPath, args, { stdio: "inherit" });
}
// The default schedule, black box (about 5 minutes, mostly waiting on the 15 s polls): time to
// ticket of six new critical threats, and what an idle minute of `run` costs each side.
execFileSync(process.execPath, ["bench/poll-latency.mjs"], { stdio: "inherit" });
// The scale figures at small sizes (a few minutes); the full sizes are
// `node bench/engine-scale.mjs` (see BENCHMARKS.md).
execFileSync(process.execPath, ["bench/engine-scale.mjs", "--quick"], { stdio: "inherit" });
