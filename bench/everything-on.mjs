// Everything on against everything off ("fast by default"): the same world of N mapped threats,
// the built CLI black-box, once with no workflow feature and once with all of them: an SLA for every
// severity with weekly milestones, risk acceptance (--accepted % of the threats hold one, announced,
// none due), `recurrence: new_issue`, grouping by asset in parent mode (--groups % of the threats in
// groups, each with its parent attached), and the conversation back (notes, project items): every
// mapped threat carries two ~40-character slices (ThreatRecord.slices) as those features leave
// them; with --conversation their config blocks too (`notes`, `github.project`: only once those
// features are in the build — an unknown config key is refused). Per mode: the store on disk after
// the runs, load at start (`status --json`: wall and peak RSS), an idle `sync`'s wall, CPU and peak
// RSS; medians of --runs rounds, off and on back to back in each round (the machine's load drifts).
// Every measured `sync` is checked to be idle: 0 GitHub writes and 0 platform writes by the
// stand-in's and the simulator's own counters, and the `sync --json` summary's counters; a run
// that wrote fails the bench (an idle run that does work measures the wrong thing).
// Prints a Markdown table: measure, off, on, ratio, goal (the goals are reported, not asserted).
// Usage: npm run build && nice node bench/everything-on.mjs [--threats 100000] [--runs 3]
//          [--groups 10] [--accepted 1] [--conversation] [--keep DIR] [--profile DIR [--profile-runs N]]
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { median, rssMethod, runCli, startFixture, WORKFLOW_LINES, writeConfig } from "./lib-cli.mjs";
import { storeBytes } from "./store-seed.mjs";

const { values } = parseArgs({
  options: {
    threats: { type: "string", default: "100000" },
    runs: { type: "string", default: "3" },
    groups: { type: "string", default: "10" },
    accepted: { type: "string", default: "1" },
    conversation: { type: "boolean", default: false },
    /** Keep each mode's state directory here. */
    keep: { type: "string" },
    /** After the measured rounds, one more idle `sync` and `status` per mode under --cpu-prof, into this directory. */
    profile: { type: "string" },
    /** How many profiled runs per mode and command with --profile (one profile file each). */
    "profile-runs": { type: "string", default: "1" },
  },
});
const RUNS = Number(values.runs);

const WORKFLOW = [...WORKFLOW_LINES, "grouping:", "  by: asset", "  mode: parent", ""];
/** The conversation back (contract, "The conversation back"): `notes` at the top, `project` under `github`. */
const NOTES = ["notes:", "  comments: 3", ""];
const PROJECT = [
  "  project:",
  "    owner: acme",
  "    number: 1",
  "    fields:",
  '      Severity: "{{ threat.severity }}"',
];

/** The CLI's error lines (plain text, as a refused config's, or JSON log lines of level error), for the message of a failed run. */
const errors = (line) => !line.startsWith("{") || /"level":(50|60)/.test(line);

function check(run, what) {
  if (run.code !== 0 || run.timedOut)
    throw new Error(
      `${what} exited ${run.code}${run.timedOut ? " (timed out)" : ""}: ${run.stdout.slice(0, 500)}${run.stderrKept.slice(-5).join("\n")}`,
    );
  return run;
}

async function farCounters(fx) {
  const res = await fetch(fx.countersUrl);
  return res.json();
}

/**
 * Writes between two counter readings, by route (every request that is not a GET, answered or
 * refused: the stand-in's `writes` counts only those that landed), GitHub's and the platform's.
 */
function writesBetween(before, after) {
  const writes = (byRoute) =>
    Object.entries(byRoute)
      .filter(([route]) => !route.startsWith("GET ") && route !== "POST /oauth/token")
      .reduce((n, [, v]) => n + v, 0);
  return {
    github: writes(after.github.byRoute) - writes(before.github.byRoute),
    githubRequests: after.github.requests - before.github.requests,
    platform: writes(after.platform.byRoute) - writes(before.platform.byRoute),
    platformRequests: after.platform.requests - before.platform.requests,
  };
}

/** The `sync --json` summary's counters that are not zero (the last JSON line of stdout). */
function summaryCounters(stdout) {
  const line = stdout
    .trim()
    .split("\n")
    .reverse()
    .find((l) => l.startsWith("{"));
  if (!line) return {};
  const summary = JSON.parse(line);
  const counters = summary.counters ?? summary.counts ?? {};
  return Object.fromEntries(Object.entries(counters).filter(([, v]) => typeof v === "number" && v !== 0));
}

/** Counters of the summary that name work done (a write of any kind). */
const WORK = /created|updated|closed|reopened|commented|written|attached|verdict|patched|writes|sent|noted/;

const MODES = ["off", "on"];
const base = values.keep ? resolve(values.keep) : mkdtempSync(join(os.tmpdir(), "everything-on-"));
mkdirSync(base, { recursive: true });
const fixtures = {};
const worlds = {};
const warmups = {};
try {
  for (const mode of MODES) {
    const on = mode === "on";
    const dir = join(base, mode);
    mkdirSync(dir, { recursive: true });
    const fx = await startFixture([
      "--threats",
      values.threats,
      "--state",
      join(dir, "state.json"),
      "--counters",
      ...(on ? ["--workflow", "--slices", "--groups", values.groups, "--accepted", values.accepted] : []),
    ]);
    fixtures[mode] = fx;
    const config = writeConfig(dir, fx);
    if (on) {
      let text = readFileSync(config, "utf8");
      if (values.conversation) text = text.replace(/^github:\n/m, `github:\n${PROJECT.join("\n")}\n`);
      text += WORKFLOW.join("\n") + (values.conversation ? NOTES.join("\n") : "");
      writeFileSync(config, text);
    }
    worlds[mode] = {
      dir,
      config,
      fx,
      samples: { wall: [], cpu: [], rss: [], statusWall: [], statusCpu: [], statusRss: [] },
    };
    // The first run reads both streams from the start
    // (every item a re-delivery); the second settles what it left. Their writes are reported.
    warmups[mode] = [];
    for (let i = 0; i < 2; i++) {
      const before = await farCounters(fx);
      const run = check(
        await runCli(["sync", "-c", config, "--json"], { cwd: dir, keep: errors }),
        `${mode} warm-up`,
      );
      warmups[mode].push({
        wallMs: Math.round(run.wallMs),
        ...writesBetween(before, await farCounters(fx)),
        counters: summaryCounters(run.stdout),
      });
    }
  }
  for (let r = 0; r < RUNS; r++) {
    for (const mode of MODES) {
      const { dir, config, fx, samples } = worlds[mode];
      const before = await farCounters(fx);
      const sync = check(await runCli(["sync", "-c", config, "--json"], { cwd: dir }), `${mode} sync`);
      const writes = writesBetween(before, await farCounters(fx));
      const counters = summaryCounters(sync.stdout);
      const work = Object.keys(counters).filter((k) => WORK.test(k));
      if (writes.github !== 0 || writes.platform !== 0 || work.length > 0)
        throw new Error(
          `${mode}: the idle sync did work: ${JSON.stringify({ writes, counters })} (warm-ups: ${JSON.stringify(warmups[mode])})`,
        );
      samples.idle = { ...writes, counters };
      samples.wall.push(sync.wallMs);
      samples.cpu.push(sync.cpuMs);
      samples.rss.push(sync.peakRssMb);
      const status = check(await runCli(["status", "-c", config, "--json"], { cwd: dir }), `${mode} status`);
      samples.statusWall.push(status.wallMs);
      samples.statusCpu.push(status.cpuMs);
      samples.statusRss.push(status.peakRssMb);
    }
  }
  if (values.profile) {
    // Not counted in the table: where the time goes, per mode (node's --cpu-prof through NODE_OPTIONS).
    for (const mode of MODES) {
      const { dir, config } = worlds[mode];
      for (const command of ["sync", "status"]) {
        const into = join(resolve(values.profile), `${mode}-${command}`);
        mkdirSync(into, { recursive: true });
        process.env.NODE_OPTIONS = `--cpu-prof --cpu-prof-interval=250 --cpu-prof-dir=${into}`;
        for (let i = 0; i < Number(values["profile-runs"]); i++)
          check(
            await runCli([command, "-c", config, "--json"], { cwd: dir }),
            `${mode} ${command} (profiled)`,
          );
        delete process.env.NODE_OPTIONS;
      }
    }
  }
} catch (err) {
  if (!values.keep) rmSync(base, { recursive: true, force: true });
  throw err;
} finally {
  await Promise.allSettled(Object.values(fixtures).map((fx) => fx.stop()));
}

const MB = 1024 * 1024;
const row = (measure, off, on, fmt, goal, ratioGoal) => {
  const ratio = on / off;
  return `| ${measure} | ${fmt(off)} | ${fmt(on)} | ${ratio.toFixed(2)}×${ratioGoal ? ` (goal ≤ ${ratioGoal}×)` : ""} | ${goal} |`;
};
const mb = (v) => `${v.toFixed(1)} MB`;
const s = (v) => `${(v / 1000).toFixed(2)} s`;
const m = (mode, what) => median(worlds[mode].samples[what]);
const off = worlds.off.samples;
const on = worlds.on.samples;
// The median of each round's on/off (the two runs next to each other): drift cancels out.
const paired = (what) => median(on[what].map((v, i) => v / off[what][i]));
const state = {
  off: storeBytes(join(worlds.off.dir, "state.json")) / MB,
  on: storeBytes(join(worlds.on.dir, "state.json")) / MB,
};
const lines = [
  `everything on vs off: ${JSON.stringify({
    threats: Number(values.threats),
    mapped: fixtures.on.mapped,
    groups: fixtures.on.groups,
    grouped: fixtures.on.grouped,
    accepted: fixtures.on.accepted,
    conversation: values.conversation,
    runs: RUNS,
  })}`,
  `machine: ${os.cpus().length} cores, load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")} (at the end); RSS: ${rssMethod}`,
  "",
  "| measure | off | on | ratio on:off | goal (on) |",
  "|---|---|---|---|---|",
  row("state on disk (store files)", state.off, state.on, mb, "≤ 60 MB", "1.3"),
  row("load at start (`status --json` wall)", m("off", "statusWall"), m("on", "statusWall"), s, "≤ 0.4 s"),
  row("load at start, CPU (user+sys)", m("off", "statusCpu"), m("on", "statusCpu"), s, "—"),
  row("`status --json` peak RSS", m("off", "statusRss"), m("on", "statusRss"), mb, "≤ 200 MB"),
  row("idle `sync` wall", m("off", "wall"), m("on", "wall"), s, "≤ 0.6 s", "1.25"),
  `| idle \`sync\` wall, paired rounds | | | ${paired("wall").toFixed(2)}× (goal ≤ 1.25×) | |`,
  row("idle `sync` CPU (user+sys)", m("off", "cpu"), m("on", "cpu"), s, "—"),
  row("idle `sync` peak RSS", m("off", "rss"), m("on", "rss"), mb, "≤ 200 MB", "1.2"),
  "",
  `idle check (last measured run): off ${JSON.stringify(off.idle)}; on ${JSON.stringify(on.idle)}`,
  `warm-ups: off ${JSON.stringify(warmups.off)}; on ${JSON.stringify(warmups.on)}`,
  `samples: ${JSON.stringify(
    Object.fromEntries(
      MODES.map((mode) => [
        mode,
        Object.fromEntries(
          ["wall", "cpu", "rss", "statusWall", "statusCpu", "statusRss"].map((k) => [
            k,
            worlds[mode].samples[k].map((v) => Math.round(v)),
          ]),
        ),
      ]),
    ),
  )}`,
];
process.stdout.write(`${lines.join("\n")}\n`);
if (!values.keep) rmSync(base, { recursive: true, force: true });
else process.stdout.write(`state kept in ${base}/{off,on} (configs there name fixtures that are gone)\n`);
