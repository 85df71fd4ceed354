// The state store's figures, paired: this checkout's build against the build of an older checkout
// (e.g. the last build before the SQLite store), the same scenario against both in the same run,
// base and new alternately (A B A B …) at every repeat, so that the machine's drift falls on both.
// Prints, per figure, min / median / max of each build and the ratio new/base of the medians, with
// the machine, Node, the load average (at the start and around each scenario) and both commits.
//
//   npm run build && node bench/store-pair.mjs --base DIR [--sizes 100000] [--runs 5]
//     [--only commit,world,stream,new] [--stream 1000000] [--stream-runs N] [--stream-max-s 540]
//     [--new 2000] [--groups 10] [--accepted 1]
//
// --base DIR: an older checkout with its dist/ built (`npm run build` there). Both builds' worlds
// are one world stored twice, each time through that build's own state API (bench/store-seed.mjs:
// the SQLite store's rows; for a build before it, the VERSION-1 file its own engine converts).
// The scenarios (each build's CLI is its bundled dist/cli.js, run as a whole process; CPU and peak
// RSS of the child by /usr/bin/time, wall measured here, process start included):
// - commit: an intent made durable at each --sizes mapped threats (generated the same way for both,
//   in a child process per build): the engine path of bench/state-store.mjs (openEngineState,
//   putIntent + persist), the median of 201 commits, in a fresh child from the same stored state
//   each repeat; also its load wall and peak RSS.
// - world: the world of bench/scale-fixture.mjs at each --sizes, features off and every workflow
//   feature on (SLA with weekly milestones, acceptance, recurrence, grouping by asset in parent mode
//   with --groups % grouped, --accepted % accepted, two slices a threat), one fixture per mode
//   serving both builds: after two warm-up syncs per build, the store's bytes on disk, then per
//   repeat an idle `sync --json` (checked idle: no GitHub or platform write by the far sides'
//   counters) and a `status --json`, each A then B; last, per repeat, the no-change re-delivery
//   (`sync` from the seeded state again, cursors null: every threat re-delivered unchanged).
// - stream: --stream threats from an empty state, min_severity critical (~1/9 eligible), budget
//   off, `sync --max-duration --stream-max-s`, a fresh fixture per run: peak RSS, wall, created.
// - new: time per new issue, budget off, --new threats from an empty state, a fresh fixture per
//   run: the mean gap between consecutive audit lines `action: create`.
// The targets are printed beside the figures, never asserted. The machine may be shared: read the
// medians, the min–max spread and the load average, and repeat a surprising figure.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { createTimes, isCreate, meanGap } from "./engine-scale-scenarios.mjs";
import { median, runCli, startFixture, WORKFLOW_LINES, writeConfig } from "./lib-cli.mjs";
import { seedStore, storeBytes } from "./store-seed.mjs";

const { values } = parseArgs({
  options: {
    base: { type: "string" },
    sizes: { type: "string", default: "100000" },
    runs: { type: "string", default: "5" },
    only: { type: "string", default: "commit,world,stream,new" },
    stream: { type: "string", default: "1000000" },
    "stream-runs": { type: "string" },
    "stream-max-s": { type: "string", default: "540" },
    new: { type: "string", default: "2000" },
    groups: { type: "string", default: "10" },
    accepted: { type: "string", default: "1" },
    // The child processes of the commit scenario (this script, run again).
    child: { type: "string" },
    dist: { type: "string" },
    size: { type: "string" },
    path: { type: "string" },
  },
});

const REPOS = ["acme-corp/security-findings", "acme-corp/infra-threats", "acme-corp/leaked-credentials"];
const COMMITS = 201;

/** A UUID-shaped id made from a string, the same in every run (both builds' worlds must be one). */
function idOf(text) {
  const h = createHash("sha256").update(text).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The mapped threats of bench/state-store.mjs, made from their index alone. */
function commitWorld(size, emptyState) {
  const state = emptyState();
  for (let i = 0; i < size; i++) {
    const repo = REPOS[i % REPOS.length];
    const number = 1_000 + i;
    state.threats[idOf(`threat ${i}`)] = {
      status: i % 9 === 0 ? "fixed" : "open",
      severity: i % 5,
      assetId: idOf(`asset ${i}`),
      updatedAt: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
      position: String(10_000_000 + i),
      gone: false,
      issue: {
        repo,
        number,
        url: `https://github.com/${repo}/issues/${number}`,
        state: i % 9 === 0 ? "closed" : "open",
        hash: createHash("sha256").update(`hash ${i}`).digest("hex").slice(0, 32),
      },
      link: `${repo}#${number}`,
    };
  }
  return state;
}

const importFrom = (dist, file) => import(pathToFileURL(join(dist, file)).href);

/** Child: the world of `size` mapped threats stored at `path` by the build of `dist`. */
async function childGenerate(dist, size, path) {
  // Where the build keeps it: the records' schema in sync/ (or, a build from before that, state/).
  const emptyState =
    (await importFrom(dist, "state/index.js")).emptyState ??
    (await importFrom(dist, "sync/schema.js")).emptyState;
  await seedStore(path, commitWorld(size, emptyState), dist);
}

/** Child: bench/state-store.mjs's measure, with the modules of the build of `dist`. */
async function childCommit(dist, path) {
  const { openEngineState } = await importFrom(dist, "cli/state-open.js");
  const { commitOf, emptyDirty } = await importFrom(dist, "sync/records/state-changes.js");
  const { createStateContext, nextSeq, putIntent } = await importFrom(dist, "sync/records/state-updates.js");
  const started = performance.now();
  const opened = await openEngineState(path);
  const ctx = createStateContext(opened.state);
  const loadMs = performance.now() - started;
  const times = [];
  for (let k = 0; k < COMMITS; k++) {
    const t = performance.now();
    putIntent(ctx, {
      id: `i-${nextSeq(ctx)}`,
      kind: "create",
      threatId: idOf(`intent ${k}`),
      repo: REPOS[0],
      startedAt: new Date().toISOString(),
    });
    // As src/sync/context.ts persist(): the commit of what changed, the dirty set cleared.
    const commit = commitOf(ctx.state, ctx.changes);
    ctx.changes = emptyDirty();
    await opened.persist(commit);
    times.push(performance.now() - t);
  }
  await opened.close();
  return { commitMs: median(times), loadMs, peakRssMb: process.resourceUsage().maxRSS / 1024 };
}

if (values.child === "generate") {
  await childGenerate(values.dist, Number(values.size), values.path);
  process.exit(0);
}
if (values.child === "commit") {
  process.stdout.write(JSON.stringify(await childCommit(values.dist, values.path)));
  process.exit(0);
}

// ---- the parent ----
if (!values.base) throw new Error("usage: node bench/store-pair.mjs --base DIR (an older checkout, built)");
const here = resolve(import.meta.dirname, "..");
const BUILDS = { base: resolve(values.base), new: here };
const ORDER = ["base", "new"];
const RUNS = Number(values.runs);
const STREAM_RUNS = Number(values["stream-runs"] ?? values.runs);
const only = new Set(values.only.split(","));
const sizes = values.sizes.split(",").map(Number);
const self = new URL(import.meta.url).pathname;
const dist = (build) => join(BUILDS[build], "dist");
const cli = (build) => join(BUILDS[build], "dist/cli.js");

const commitOf = (dir) => {
  try {
    const sha = execFileSync("git", ["-C", dir, "rev-parse", "--short", "HEAD"]).toString().trim();
    const dirty = execFileSync("git", ["-C", dir, "status", "--porcelain", "--untracked-files=no"])
      .toString()
      .trim();
    return dirty ? `${sha} (with uncommitted changes)` : sha;
  } catch {
    return "unknown";
  }
};
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const model = /model name\s*:\s*(.*)/.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? "unknown";

console.log(`## store pair — ${new Date().toISOString()}\n`);
console.log(
  `machine: ${os.cpus().length} × ${model}, ${Math.round(os.totalmem() / 2 ** 30)} GB RAM; node ${process.version}; load average at start ${load()}`,
);
console.log(
  `base: ${BUILDS.base} at ${commitOf(BUILDS.base)}; new: ${BUILDS.new} at ${commitOf(BUILDS.new)}`,
);
console.log(`command: node bench/store-pair.mjs ${process.argv.slice(2).join(" ")}\n`);

/** figure name → { unit, target, base: [], new: [], note } in the order first recorded. */
const figures = new Map();
function record(name, build, value, { unit, target = "—", note } = {}) {
  if (!figures.has(name)) figures.set(name, { unit, target, base: [], new: [], notes: [] });
  const f = figures.get(name);
  f[build].push(value);
  if (note && !f.notes.includes(note)) f.notes.push(note);
}
const loads = [];
async function scenario(name, fn) {
  const before = load();
  await fn();
  loads.push(`${name}: ${before} → ${load()}`);
}

function check(run, what) {
  if (run.code !== 0 || run.timedOut)
    throw new Error(
      `${what} exited ${run.code}${run.timedOut ? " (timed out)" : ""}: ${run.stdout.slice(0, 500)} ${run.stderrKept.slice(-5).join("\n")}`,
    );
  return run;
}
const errors = (line) => !line.startsWith("{") || /"level":(50|60)/.test(line);

/** A state's files copied aside (`cp -a` of the folder without its config), to start a repeat from. */
function keep(dir, into) {
  rmSync(into, { recursive: true, force: true });
  cpSync(dir, into, { recursive: true, filter: (src) => !/\.yaml$|\.lock$|\.rss-/.test(src) });
}
function restore(from, dir) {
  for (const name of readdirSync(dir)) if (name.startsWith("state")) rmSync(join(dir, name), { force: true });
  cpSync(from, dir, { recursive: true });
}

const root = mkdtempSync(join(os.tmpdir(), "tb-store-pair-"));
try {
  for (const n of sizes) {
    const k = `${Math.round(n / 1000)}k`;
    if (only.has("commit")) {
      await scenario(`commit ${k}`, async () => {
        const paths = {};
        for (const build of ORDER) {
          const dir = join(root, `commit-${build}`);
          mkdirSync(dir, { recursive: true });
          paths[build] = join(dir, "state.json");
          execFileSync(
            process.execPath,
            [self, "--child", "generate", "--dist", dist(build), "--size", String(n), "--path", paths[build]],
            { stdio: "inherit" },
          );
          keep(dir, `${dir}.seeded`);
          record(`commit world on disk at ${k} (seeded)`, build, storeBytes(paths[build]) / 1e6, {
            unit: "MB",
          });
        }
        for (let r = 0; r < RUNS; r++) {
          for (const build of ORDER) {
            restore(join(root, `commit-${build}.seeded`), join(root, `commit-${build}`));
            const out = execFileSync(process.execPath, [
              self,
              "--child",
              "commit",
              "--dist",
              dist(build),
              "--path",
              paths[build],
            ]);
            const m = JSON.parse(out.toString());
            record(`intent made durable at ${k} mapped (median of ${COMMITS})`, build, m.commitMs, {
              unit: "ms",
              target: "≤ 5 ms",
            });
            record(`  its load (openEngineState) at ${k}`, build, m.loadMs, { unit: "ms" });
            record(`  its peak RSS (load + ${COMMITS} commits) at ${k}`, build, m.peakRssMb, { unit: "MB" });
          }
        }
      });
    }
    if (only.has("world")) await scenario(`world ${k}`, () => worldScenario(n, k));
  }
  if (only.has("stream")) {
    const n = Number(values.stream);
    await scenario(`stream ${n}`, async () => {
      for (let r = 0; r < STREAM_RUNS; r++)
        for (const build of ORDER) {
          const dir = mkdtempSync(join(root, `stream-${build}-`));
          const fx = await startFixture(["--threats", String(n)]);
          try {
            const config = writeConfig(dir, fx, { minSeverity: "critical" });
            const maxS = Number(values["stream-max-s"]);
            const run = await runCli(["sync", "-c", config, "--json", "--max-duration", String(maxS)], {
              cwd: dir,
              cli: cli(build),
              keep: isCreate,
              timeoutMs: (maxS + 120) * 1000,
            });
            const note = run.timedOut
              ? `stopped at ${maxS + 120} s: the peak RSS so far, a lower bound`
              : run.code !== 0
                ? `exit ${run.code}`
                : null;
            const label = `${Math.round(n / 1000).toLocaleString("en")}k`;
            record(`stream of ${label} threats: peak RSS`, build, run.peakRssMb, {
              unit: "MB",
              target: "≤ 300 MB",
              note,
            });
            record(`  the stream's wall`, build, run.wallMs / 1000, { unit: "s" });
            record(`  the stream's issues created`, build, run.stderrKept.length, { unit: "" });
          } finally {
            await fx.stop();
            rmSync(dir, { recursive: true, force: true });
          }
        }
    });
  }
  if (only.has("new")) {
    const n = Number(values.new);
    await scenario(`new issue ${n}`, async () => {
      for (let r = 0; r < RUNS; r++)
        for (const build of ORDER) {
          const dir = mkdtempSync(join(root, `new-${build}-`));
          const fx = await startFixture(["--threats", String(n)]);
          try {
            const config = writeConfig(dir, fx);
            const run = check(
              await runCli(["sync", "-c", config, "--json"], { cwd: dir, cli: cli(build), keep: isCreate }),
              `${build} new issues`,
            );
            const times = createTimes(run.stderrKept);
            record(`time per new issue, budget off, ${n} threats (mean gap)`, build, meanGap(times), {
              unit: "ms",
              target: "≤ 1.2× base",
            });
            record(`  issues created (time per new issue)`, build, times.length, { unit: "" });
          } finally {
            await fx.stop();
            rmSync(dir, { recursive: true, force: true });
          }
        }
    });
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}

/** The world scenario at n: features off and on, both builds on one fixture per mode. */
async function worldScenario(n, k) {
  const MODES = ["off", "on"];
  const fixtures = {};
  const worlds = {};
  try {
    for (const mode of MODES) {
      const on = mode === "on";
      const dirs = { new: join(root, `world-${mode}-new`), base: join(root, `world-${mode}-base`) };
      for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
      const fx = await startFixture([
        "--threats",
        String(n),
        "--state",
        join(dirs.new, "state.json"),
        "--also-state",
        join(dirs.base, "state.json"),
        "--also-dist",
        dist("base"),
        "--counters",
        ...(on ? ["--workflow", "--slices", "--groups", values.groups, "--accepted", values.accepted] : []),
      ]);
      fixtures[mode] = fx;
      worlds[mode] = {};
      for (const build of ORDER) {
        const dir = dirs[build];
        const config = writeConfig(dir, fx);
        if (on)
          writeFileSync(
            config,
            `${readFileSync(config, "utf8")}${[...WORKFLOW_LINES, "grouping:", "  by: asset", "  mode: parent", ""].join("\n")}`,
          );
        worlds[mode][build] = { dir, config };
        if (!on) keep(dir, `${dir}.seeded`);
      }
      if (on)
        console.log(
          `world on at ${k}: ${JSON.stringify({ mapped: fx.mapped, groups: fx.groups, grouped: fx.grouped, accepted: fx.accepted })}`,
        );
    }
    // Two warm-ups per build and mode: the first reads both streams from the start (every item a
    // re-delivery), the second settles what it left. Then the store as it stands on disk.
    for (const mode of MODES)
      for (const build of ORDER)
        for (let i = 0; i < 2; i++) {
          const { dir, config } = worlds[mode][build];
          check(
            await runCli(["sync", "-c", config, "--json"], { cwd: dir, cli: cli(build), keep: errors }),
            `${build} ${mode} warm-up`,
          );
        }
    for (const mode of MODES)
      for (const build of ORDER)
        record(
          `state on disk at ${k}, features ${mode}`,
          build,
          storeBytes(join(worlds[mode][build].dir, "state.json")) / 1e6,
          {
            unit: "MB",
            target: "≤ 60 MB",
          },
        );
    const idle = { off: { base: [], new: [] }, on: { base: [], new: [] } };
    for (let r = 0; r < RUNS; r++) {
      for (const mode of MODES) {
        for (const build of ORDER) {
          const { dir, config } = worlds[mode][build];
          const before = await farWrites(fixtures[mode]);
          const sync = check(
            await runCli(["sync", "-c", config, "--json"], { cwd: dir, cli: cli(build), keep: errors }),
            `${build} ${mode} idle sync`,
          );
          const wrote = (await farWrites(fixtures[mode])) - before;
          if (wrote !== 0) throw new Error(`${build} ${mode}: the idle sync wrote ${wrote} times (not idle)`);
          idle[mode][build].push(sync.wallMs);
          record(`idle \`sync\` at ${k}, features ${mode}: wall`, build, sync.wallMs / 1000, {
            unit: "s",
            target: mode === "on" ? "≤ 0.6 s" : "—",
          });
          record(`  idle \`sync\` at ${k}, features ${mode}: CPU (user+sys)`, build, sync.cpuMs / 1000, {
            unit: "s",
          });
          record(`  idle \`sync\` at ${k}, features ${mode}: peak RSS`, build, sync.peakRssMb, {
            unit: "MB",
            target: mode === "off" ? "≤ 150 MB" : "—",
          });
        }
        for (const build of ORDER) {
          const { dir, config } = worlds[mode][build];
          const status = check(
            await runCli(["status", "-c", config, "--json"], { cwd: dir, cli: cli(build), keep: errors }),
            `${build} ${mode} status`,
          );
          record(`\`status --json\` at ${k}, features ${mode}: wall`, build, status.wallMs / 1000, {
            unit: "s",
            target: "≤ 0.4 s",
          });
          record(
            `  \`status --json\` at ${k}, features ${mode}: CPU (user+sys)`,
            build,
            status.cpuMs / 1000,
            {
              unit: "s",
            },
          );
          record(`  \`status --json\` at ${k}, features ${mode}: peak RSS`, build, status.peakRssMb, {
            unit: "MB",
          });
        }
      }
    }
    // Each round's on/off of the same build (the two runs a few seconds apart): drift cancels out.
    for (const build of ORDER)
      for (let r = 0; r < RUNS; r++)
        record(
          `idle \`sync\` at ${k}, on:off of the same round`,
          build,
          idle.on[build][r] / idle.off[build][r],
          {
            unit: "×",
            target: "≤ 1.25×",
          },
        );
    // Last: the no-change re-delivery from the seeded state (cursors null), the same state each repeat.
    for (let r = 0; r < RUNS; r++)
      for (const build of ORDER) {
        const { dir, config } = worlds.off[build];
        restore(`${dir}.seeded`, dir);
        const sync = check(
          await runCli(["sync", "-c", config, "--json"], { cwd: dir, cli: cli(build), keep: errors }),
          `${build} re-delivery`,
        );
        record(`no-change re-delivery \`sync\` at ${k} (features off): peak RSS`, build, sync.peakRssMb, {
          unit: "MB",
          target: "≤ 150 MB",
        });
        record(`  the re-delivery's wall at ${k}`, build, sync.wallMs / 1000, { unit: "s" });
        record(`  the re-delivery's CPU (user+sys) at ${k}`, build, sync.cpuMs / 1000, { unit: "s" });
      }
  } finally {
    await Promise.allSettled(Object.values(fixtures).map((fx) => fx.stop()));
  }
}

/** Requests that are not reads (GitHub's and the platform's), as the far sides count them. */
async function farWrites(fx) {
  const c = await (await fetch(fx.countersUrl)).json();
  const writes = (byRoute) =>
    Object.entries(byRoute)
      .filter(([route]) => !route.startsWith("GET ") && route !== "POST /oauth/token")
      .reduce((sum, [, v]) => sum + v, 0);
  return writes(c.github.byRoute) + writes(c.platform.byRoute);
}

// ---- the table ----
const fmt = (v, unit) => {
  if (!Number.isFinite(v)) return String(v);
  const digits =
    unit === "MB" || unit === "" ? (v >= 100 || unit === "" ? 0 : 1) : v >= 100 ? 0 : v >= 10 ? 1 : 2;
  return `${v.toFixed(digits)}${unit ? ` ${unit}` : ""}`.replace(" ×", "×");
};
const spread = (list, unit) =>
  list.length === 0
    ? "—"
    : `${fmt(Math.min(...list), unit)} / **${fmt(median(list), unit)}** / ${fmt(Math.max(...list), unit)}`;
console.log(
  "\n| figure | base: min / median / max | new: min / median / max | new/base (medians) | target |",
);
console.log("|---|---|---|---|---|");
for (const [name, f] of figures) {
  const ratio = f.base.length && f.new.length ? `${(median(f.new) / median(f.base)).toFixed(2)}×` : "—";
  const notes = f.notes.length ? ` (${f.notes.join("; ")})` : "";
  console.log(
    `| ${name}${notes} | ${spread(f.base, f.unit)} | ${spread(f.new, f.unit)} | ${ratio} | ${f.target} |`,
  );
}
console.log(
  `\nruns: ${RUNS} per figure (stream: ${STREAM_RUNS}), base and new alternately; load average per scenario:`,
);
for (const line of loads) console.log(`- ${line}`);
console.log(`load average at the end: ${load()}`);
