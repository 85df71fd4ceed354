// What the workflow features cost when on (every feature on should cost about what it costs off):
// the same world of N mapped threats, features off and on (an SLA for every severity with weekly
// milestones, risk acceptance, `recurrence: new_issue`), the built CLI black-box. Per mode: the
// state on disk after the runs, an idle `sync`'s wall time, CPU time and peak RSS, `status --json`'s peak
// RSS; medians of --runs runs, and the ratios on/off. With --before DIR, the same for the CLI
// built in DIR (e.g. main's checkout), run interleaved with this one on the same state and world.
// Usage: npm run build && node bench/feature-costs.mjs [--threats 30000] [--runs 5] [--before /work/main]
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { median, runCli, startFixture, stateFiles, writeConfig } from "./lib-cli.mjs";

/** The store's files (snapshot and journals), not the copy of the version-1 file it was converted from. */
function storeBytes(dir) {
  const names = stateFiles(dir).names.filter((n) => !n.endsWith(".v1.bak"));
  return names.reduce((sum, n) => sum + statSync(join(dir, n)).size, 0);
}

const { values } = parseArgs({
  options: {
    threats: { type: "string", default: "30000" },
    runs: { type: "string", default: "5" },
    before: { type: "string" },
  },
});
const RUNS = Number(values.runs);
const here = resolve(import.meta.dirname, "..");
const clis = { after: join(here, "dist/cli.js") };
if (values.before) clis.before = join(resolve(values.before), "dist/cli.js");

const WORKFLOW = [
  "sla:",
  "  critical: 7d",
  "  high: 30d",
  "  medium: 90d",
  "  low: 180d",
  "  informational: 365d",
  "  milestones: weekly",
  "acceptance:",
  "  label: risk-accepted",
  "  default: 90d",
  "recurrence: new_issue",
  "",
].join("\n");

function check(run, what) {
  if (run.code !== 0 || run.timedOut)
    throw new Error(`${what} exited ${run.code}: ${run.stdout.slice(0, 500)}`);
  return run;
}

const results = {};
for (const mode of ["off", "on"]) {
  const base = mkdtempSync(join(tmpdir(), `feature-costs-${mode}-`));
  const fx = await startFixture([
    "--threats",
    values.threats,
    "--state",
    join(base, "state.json"),
    ...(mode === "on" ? ["--workflow"] : []),
  ]);
  try {
    const dirs = {};
    for (const name of Object.keys(clis)) {
      const dir = mkdtempSync(join(base, `${name}-`));
      copyFileSync(join(base, "state.json"), join(dir, "state.json"));
      const config = writeConfig(dir, fx);
      if (mode === "on") writeFileSync(config, readFileSync(config, "utf8") + WORKFLOW);
      dirs[name] = { dir, config };
      // The first run converts the fixture's version-1 file; the second settles what it left.
      for (let i = 0; i < 2; i++)
        check(
          await runCli(["sync", "-c", config, "--json"], { cwd: dir, cli: clis[name] }),
          `${name} warm-up`,
        );
    }
    const samples = Object.fromEntries(
      Object.keys(clis).map((n) => [n, { wall: [], cpu: [], rss: [], status: [] }]),
    );
    for (let r = 0; r < RUNS; r++) {
      for (const [name, { dir, config }] of Object.entries(dirs)) {
        const sync = check(
          await runCli(["sync", "-c", config, "--json"], { cwd: dir, cli: clis[name] }),
          "sync",
        );
        const summary = JSON.parse(sync.stdout.trim().split("\n").pop());
        const writes = JSON.stringify(summary).match(/"(created|updated|closed|reopened)":\s*[1-9]/);
        if (writes) throw new Error(`${name} ${mode}: the idle sync wrote: ${writes[0]}`);
        samples[name].wall.push(sync.wallMs);
        samples[name].cpu.push(sync.cpuMs);
        samples[name].rss.push(sync.peakRssMb);
        const status = check(
          await runCli(["status", "-c", config, "--json"], { cwd: dir, cli: clis[name] }),
          "status",
        );
        samples[name].status.push(status.peakRssMb);
      }
    }
    for (const [name, { dir }] of Object.entries(dirs)) {
      const s = samples[name];
      const range = (xs) => [Math.min(...xs), median(xs), Math.max(...xs)].map((x) => Math.round(x));
      results[`${name}/${mode}`] = {
        mapped: fx.mapped,
        stateBytes: storeBytes(dir),
        idleSyncWallMs: range(s.wall),
        idleSyncCpuMs: range(s.cpu),
        idleSyncRssMb: range(s.rss),
        statusRssMb: range(s.status),
      };
    }
  } finally {
    await fx.stop();
    rmSync(base, { recursive: true, force: true });
  }
}

for (const name of Object.keys(clis)) {
  const off = results[`${name}/off`];
  const on = results[`${name}/on`];
  const ratio = (a, b) => Number((a / b).toFixed(2));
  results[`${name}/ratio on:off`] = {
    state: ratio(on.stateBytes, off.stateBytes),
    idleSyncWall: ratio(on.idleSyncWallMs[1], off.idleSyncWallMs[1]),
    idleSyncCpu: ratio(on.idleSyncCpuMs[1], off.idleSyncCpuMs[1]),
    idleSyncRss: ratio(on.idleSyncRssMb[1], off.idleSyncRssMb[1]),
    statusRss: ratio(on.statusRssMb[1], off.statusRssMb[1]),
  };
}
process.stdout.write(`${JSON.stringify({ threats: Number(values.threats), runs: RUNS })}\n`);
for (const [key, value] of Object.entries(results))
  process.stdout.write(`${key}: ${JSON.stringify(value)}\n`);
