// Start-up of two builds of the CLI, paired: an idle `sync --json` and a `status --json` over the
// same N-threat world (bench/scale-fixture.mjs), each build with its own copy of the state (stored
// through that build's own state API: bench/store-seed.mjs; one `sync` first), run alternately A B A B … after a warm-up
// (which also fills Node's compile cache). CPU is user + sys of the finished child as the kernel
// accounts it, peak RSS its VmHWM (/usr/bin/time); wall includes process start. Medians, and the
// B/A ratio of CPU taken pair by pair (noisy machines: read the CPU and the ratio, not the wall).
// Usage: node bench/startup-pair.mjs --a DIR_WITH_DIST --b DIR_WITH_DIST [--threats 50000] [--pairs 10]
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { median, startFixture, writeConfig } from "./lib-cli.mjs";

const { values } = parseArgs({
  options: {
    a: { type: "string" },
    b: { type: "string" },
    threats: { type: "string", default: "50000" },
    pairs: { type: "string", default: "10" },
  },
});
if (!values.a || !values.b) throw new Error("usage: --a DIR --b DIR (each holding a built dist/)");
const builds = { A: resolve(values.a), B: resolve(values.b) };
const root = mkdtempSync(join(tmpdir(), "tb-startup-"));
for (const build of ["A", "B"]) mkdirSync(join(root, build));
const fx = await startFixture([
  "--threats",
  values.threats,
  "--state",
  join(root, "A", "state.json"),
  "--state-dist",
  join(builds.A, "dist"),
  "--also-state",
  join(root, "B", "state.json"),
  "--also-dist",
  join(builds.B, "dist"),
]);

function run(build, dir, args) {
  const out = join(dir, ".time");
  const started = performance.now();
  const r = spawnSync(
    "/usr/bin/time",
    [
      "-f",
      "%U %S %M",
      "-o",
      out,
      process.execPath,
      join(builds[build], "dist/cli.js"),
      ...args,
      "-c",
      join(dir, "threatbridge.yaml"),
    ],
    { encoding: "utf8", env: { ...process.env, THREATBRIDGE_LOG_LEVEL: "warn" } },
  );
  const wall = (performance.now() - started) / 1000;
  const [u, s, m] = readFileSync(out, "utf8").trim().split("\n").pop().split(" ").map(Number);
  if (r.status !== 0)
    throw new Error(`${build} ${args.join(" ")} exited ${r.status}: ${r.stderr.slice(-500)}`);
  return { cpu: u + s, wall, rssMb: m / 1024 };
}

const dirs = {};
try {
  for (const build of ["A", "B"]) {
    const dir = join(root, build);
    writeConfig(dir, fx);
    dirs[build] = dir;
    run(build, dir, ["sync", "--json"]); // reads both streams from the start (every item a re-delivery)
    run(build, dir, ["sync", "--json"]); // warm-up
    run(build, dir, ["status", "--json"]);
  }
  const results = { sync: { A: [], B: [], ratio: [] }, status: { A: [], B: [], ratio: [] } };
  for (let i = 0; i < Number(values.pairs); i += 1) {
    for (const [name, args] of [
      ["sync", ["sync", "--json"]],
      ["status", ["status", "--json"]],
    ]) {
      const a = run("A", dirs.A, args);
      const b = run("B", dirs.B, args);
      results[name].A.push(a);
      results[name].B.push(b);
      results[name].ratio.push(b.cpu / a.cpu);
    }
  }
  const summary = (list, key) => median(list.map((r) => r[key]));
  const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(
    `threats ${values.threats}, ${values.pairs} pairs, node ${process.version}, load after: ${load}`,
  );
  for (const name of ["sync", "status"]) {
    const r = results[name];
    const line = (b) =>
      `${summary(r[b], "cpu").toFixed(3)} s cpu / ${summary(r[b], "wall").toFixed(3)} s wall / ${summary(r[b], "rssMb").toFixed(0)} MB`;
    console.log(`${name}: A ${line("A")}; B ${line("B")}; B/A cpu ${median(r.ratio).toFixed(2)}×`);
  }
} finally {
  await fx.stop();
  rmSync(root, { recursive: true, force: true });
}
