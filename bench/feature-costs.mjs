// What the workflow features cost when on (every feature on should cost about what it costs off):
// the same world of N mapped threats, features off and on (an SLA for every severity with weekly
// milestones, risk acceptance, `recurrence: new_issue`), the built CLI black-box. Per mode: the
// state on disk after the runs, an idle `sync`'s wall time, CPU time and peak RSS, `status --json`'s peak
// RSS; medians of --runs runs, and the ratios on/off. With --before DIR, the same for the CLI
// built in DIR (e.g. main's checkout), run interleaved with this one on the same world, stored for
// each build through its own state API (bench/store-seed.mjs).
// With --slices, every mapped threat of both worlds also carries two plug-in features' slices of
// about 40 characters (ThreatRecord.slices: what notes and project items leave on each threat).
// Usage: npm run build && node bench/feature-costs.mjs [--threats 30000] [--runs 5] [--before /work/main] [--slices]
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { median, runCli, startFixture, WORKFLOW_LINES, writeConfig } from "./lib-cli.mjs";
import { storeBytes } from "./store-seed.mjs";

const { values } = parseArgs({
  options: {
    threats: { type: "string", default: "30000" },
    runs: { type: "string", default: "5" },
    before: { type: "string" },
    slices: { type: "boolean", default: false },
  },
});
const RUNS = Number(values.runs);
const here = resolve(import.meta.dirname, "..");
const clis = { after: join(here, "dist/cli.js") };
if (values.before) clis.before = join(resolve(values.before), "dist/cli.js");

const WORKFLOW = [...WORKFLOW_LINES, ""].join("\n");

function check(run, what) {
  if (run.code !== 0 || run.timedOut)
    throw new Error(`${what} exited ${run.code}: ${run.stdout.slice(0, 500)}`);
  return run;
}

const MODES = ["off", "on"];
const base = mkdtempSync(join(tmpdir(), "feature-costs-"));
const fixtures = {};
const dirs = {};
const samples = {};
try {
  // Both worlds served at once, so that every round runs off and on back to back (this shared
  // machine's load drifts between minutes: one mode after the other measured the drift).
  for (const mode of MODES) {
    const modeDirs = Object.fromEntries(
      Object.keys(clis).map((name) => [name, mkdtempSync(join(base, `${name}-${mode}-`))]),
    );
    // One world, stored in each build's folder by that build's own state API.
    fixtures[mode] = await startFixture([
      "--threats",
      values.threats,
      "--state",
      join(modeDirs.after, "state.json"),
      ...(modeDirs.before
        ? [
            "--also-state",
            join(modeDirs.before, "state.json"),
            "--also-dist",
            join(resolve(values.before), "dist"),
          ]
        : []),
      ...(mode === "on" ? ["--workflow"] : []),
      ...(values.slices ? ["--slices"] : []),
    ]);
    for (const name of Object.keys(clis)) {
      const key = `${name}/${mode}`;
      const dir = modeDirs[name];
      const config = writeConfig(dir, fixtures[mode]);
      if (mode === "on") writeFileSync(config, readFileSync(config, "utf8") + WORKFLOW);
      dirs[key] = { name, mode, dir, config };
      samples[key] = { wall: [], cpu: [], rss: [], status: [] };
      // The first run reads both streams from the start (every item a re-delivery); the second
      // settles what it left.
      for (let i = 0; i < 2; i++)
        check(
          await runCli(["sync", "-c", config, "--json"], { cwd: dir, cli: clis[name] }),
          `${key} warm-up`,
        );
    }
  }
  for (let r = 0; r < RUNS; r++) {
    for (const [key, { name, dir, config }] of Object.entries(dirs)) {
      const sync = check(
        await runCli(["sync", "-c", config, "--json"], { cwd: dir, cli: clis[name] }),
        "sync",
      );
      const summary = JSON.parse(sync.stdout.trim().split("\n").pop());
      const writes = JSON.stringify(summary).match(/"(created|updated|closed|reopened)":\s*[1-9]/);
      if (writes) throw new Error(`${key}: the idle sync wrote: ${writes[0]}`);
      samples[key].wall.push(sync.wallMs);
      samples[key].cpu.push(sync.cpuMs);
      samples[key].rss.push(sync.peakRssMb);
      const status = check(
        await runCli(["status", "-c", config, "--json"], { cwd: dir, cli: clis[name] }),
        "status",
      );
      samples[key].status.push(status.peakRssMb);
    }
  }
} finally {
  await Promise.allSettled(Object.values(fixtures).map((fx) => fx.stop()));
}

const results = {};
const range = (xs) => [Math.min(...xs), median(xs), Math.max(...xs)].map((x) => Math.round(x));
for (const [key, { mode, dir }] of Object.entries(dirs)) {
  const s = samples[key];
  results[key] = {
    mapped: fixtures[mode].mapped,
    stateBytes: storeBytes(join(dir, "state.json")),
    idleSyncWallMs: range(s.wall),
    idleSyncCpuMs: range(s.cpu),
    idleSyncRssMb: range(s.rss),
    statusRssMb: range(s.status),
  };
}
rmSync(base, { recursive: true, force: true });

const paired = (name, what) => samples[`${name}/on`][what].map((v, i) => v / samples[`${name}/off`][what][i]);
for (const name of Object.keys(clis)) {
  const off = results[`${name}/off`];
  const on = results[`${name}/on`];
  const ratio = (a, b) => Number((a / b).toFixed(2));
  results[`${name}/ratio on:off`] = {
    state: ratio(on.stateBytes, off.stateBytes),
    idleSyncWall: ratio(on.idleSyncWallMs[1], off.idleSyncWallMs[1]),
    idleSyncCpu: ratio(on.idleSyncCpuMs[1], off.idleSyncCpuMs[1]),
    // The median of each round's on/off (the two runs next to each other): drift cancels out.
    idleSyncWallPaired: ratio(median(paired(name, "wall")), 1),
    idleSyncCpuPaired: ratio(median(paired(name, "cpu")), 1),
    idleSyncRss: ratio(on.idleSyncRssMb[1], off.idleSyncRssMb[1]),
    statusRss: ratio(on.statusRssMb[1], off.statusRssMb[1]),
  };
}
process.stdout.write(
  `${JSON.stringify({ threats: Number(values.threats), runs: RUNS, slices: values.slices })}\n`,
);
for (const [key, value] of Object.entries(results))
  process.stdout.write(`${key}: ${JSON.stringify(value)}\n`);
