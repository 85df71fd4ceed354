// What the default schedule costs and buys, black box: the BUILT CLI's `run` (no `schedule` key, so
// the default) in a child process against the platform simulator and the GitHub stand-in, both
// in this process on 127.0.0.1.
// 1. Time to ticket: new critical threats appear at random moments while `run` is idle; for each,
//    the seconds until its issue exists on the stand-in (min, median, max).
// 2. An idle minute: platform requests (and token requests), GitHub requests and rate-limit points,
//    the daemon's CPU (% of one core, from /proc/<pid>/stat), and the state files' changes (inotify
//    events on the state directory), while nothing changes on either side.
// Counts and ratios only; nothing here is asserted. Usage:
//   node bench/poll-latency.mjs [--threats 6] [--idle-seconds 60] [--seed 1] [--schedule CRON]
//     [--platform-threats 100] [--no-budget] [--every-feature]
// --every-feature: SLA, risk acceptance, recurrence, grouping (by asset, parent mode) and notes
// configured, as in bench/everything-on.mjs (the idle minute of a daemon with every feature on).
// --platform-threats: the simulator's seeded threats, all synced before the measures (a larger
// state, e.g. 20000 with --no-budget: GitHub Enterprise Server's unlimited writes, so that the
// backfill takes seconds, not the default budget's hours).
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, watch, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startGitHubStandIn } from "../dist/github-stand-in/index.js";
import { startSimulator } from "../dist/simulator/index.js";
import { median, WORKFLOW_LINES } from "./lib-cli.mjs";

const { values } = parseArgs({
  options: {
    threats: { type: "string", default: "6" },
    "idle-seconds": { type: "string", default: "60" },
    seed: { type: "string", default: "1" },
    schedule: { type: "string" },
    "platform-threats": { type: "string", default: "100" },
    "no-budget": { type: "boolean", default: false },
    /** Every workflow feature and notes configured (SLA, acceptance, recurrence, grouping, notes). */
    "every-feature": { type: "boolean", default: false },
  },
});
const NEW_THREATS = Number(values.threats);
const IDLE_MS = Number(values["idle-seconds"]) * 1000;
const REPO = "acme/security-threats";
const TOKEN = "ghp_bench";
/** The default schedule's period: each new threat appears at a uniformly random moment within one. */
const PERIOD_MS = 15_000;

/** A small seeded generator (mulberry32), so that a run's moments can be repeated. */
function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = seeded(Number(values.seed));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function until(test, what, timeoutMs, stepMs = 20) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await test()) return;
    await sleep(stepMs);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Resolves once nothing in `dir` has changed for `quietMs`, or after `limitMs` whatever changes. */
async function quietFor(dir, quietMs, limitMs) {
  let last = performance.now();
  const watcher = watch(dir, () => (last = performance.now()));
  const end = last + limitMs;
  try {
    while (performance.now() - last < quietMs && performance.now() < end) await sleep(500);
  } finally {
    watcher.close();
  }
}

/** The daemon's CPU time so far (user + system), in ms, from /proc/<pid>/stat. */
function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 14 and 15 of the file (utime, stime), in clock ticks (USER_HZ, 100 on Linux).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** The sum of a metric's series on the daemon's /metrics (null when it has none). */
async function metric(port, name) {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  const lines = (await res.text())
    .split("\n")
    .filter((l) => l.startsWith(`${name} `) || (!name.includes("{") && l.startsWith(`${name}{`)));
  return lines.length === 0 ? null : lines.reduce((n, l) => n + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
}

const PLATFORM_THREATS = Number(values["platform-threats"]);
const sim = await startSimulator({
  seed: 7,
  assets: Math.max(1, Math.ceil(PLATFORM_THREATS / 5)),
  threats: PLATFORM_THREATS,
  asyncWriteDelayMs: 0,
});
// Without a budget, GitHub Enterprise Server's primary limit (off unless an admin sets one).
const gh = await startGitHubStandIn({
  tokens: [TOKEN],
  ...(values["no-budget"] ? { primaryLimit: { perHour: 10_000_000 } } : {}),
});
const dir = mkdtempSync(join(tmpdir(), "threatbridge-poll-"));
const stateDir = join(dir, "state");
mkdirSync(stateDir);
const port = await freePort();
const configPath = join(dir, "threatbridge.yaml");
writeFileSync(
  configPath,
  [
    "platform:",
    `  base_url: ${sim.url}`,
    `  token_url: ${sim.url}/oauth/token`,
    "  client_id: threatbridge",
    "  client_secret: threatbridge-secret",
    "github:",
    `  api_url: ${gh.url}`,
    `  token: ${TOKEN}`,
    `  repository: ${REPO}`,
    ...(values["no-budget"] ? ["  write_budget: { per_minute: 0, per_hour: 0, min_interval_ms: 0 }"] : []),
    "state:",
    `  path: ${join(stateDir, "state.json")}`,
    "health:",
    `  port: ${port}`,
    "  host: 127.0.0.1",
    "log:",
    "  format: json",
    ...(values.schedule !== undefined ? [`schedule: ${JSON.stringify(values.schedule)}`] : []),
    ...(values["every-feature"]
      ? [...WORKFLOW_LINES, "grouping:", "  by: asset", "  mode: parent", "notes:", "  comments: 3"]
      : []),
    "",
  ].join("\n"),
);

const child = spawn(process.execPath, ["dist/cli.js", "run", "-c", configPath], {
  stdio: ["ignore", "ignore", "pipe"],
  env: { PATH: process.env.PATH ?? "", THREATBRIDGE_LOG_LEVEL: "warn" },
});
let stderr = "";
child.stderr.on("data", (d) => (stderr += d.toString()));
const exited = new Promise((resolve) => child.once("exit", resolve));

const issueOf = (threatId) =>
  gh.issues(REPO).find((i) => (i.body ?? "").includes(`<!-- threatbridge:threat=${threatId} -->`));

try {
  // The backlog of the seeded threats first: created, linked, and the links' echo read back.
  const warmUp = performance.now();
  await until(
    async () => ((await metric(port, "threatbridge_ready").catch(() => null)) ?? 0) === 1,
    "ready",
    600_000,
  );
  await until(
    async () => (await metric(port, "threatbridge_queue_size").catch(() => null)) === 0,
    "the backlog to drain",
    1_800_000,
    200,
  );
  const backlogSeconds = (performance.now() - warmUp) / 1000;
  const issuesBefore = gh.issues(REPO).length;
  // Two more polls: the echo of the links comes back and is absorbed; the daemon is idle after.
  await sleep(2 * PERIOD_MS + 1000);

  // 1. Time to ticket.
  const seconds = [];
  for (let i = 0; i < NEW_THREATS; i++) {
    await sleep(Math.floor(random() * PERIOD_MS));
    const threat = sim.sim.addThreat({ severity: "critical", status: "unsolved" });
    const at = performance.now();
    await until(() => issueOf(threat.id) !== undefined, `the issue of threat ${threat.id}`, 120_000, 10);
    seconds.push((performance.now() - at) / 1000);
  }

  // 2. An idle minute, after the last new threat's work has settled: its link's echo (one poll
  // after the link) and, with notes, its note and the note's echo (two polls more). Settled: the
  // state directory unchanged for two periods (at most 5 minutes: a daemon that writes at every
  // poll is measured doing so).
  await quietFor(stateDir, 2 * PERIOD_MS + 1000, 300_000);
  const events = [];
  const watcher = watch(stateDir, (kind, name) => events.push(`${kind} ${name}`));
  const before = {
    platform: sim.sim.stats(),
    github: { ...gh.counters(), byRoute: { ...gh.counters().byRoute } },
    cpu: cpuMs(child.pid),
    cycles: await metric(port, 'threatbridge_cycles_total{outcome="ok"}'),
    at: performance.now(),
  };
  await sleep(IDLE_MS);
  const after = {
    platform: sim.sim.stats(),
    github: gh.counters(),
    cpu: cpuMs(child.pid),
    cycles: await metric(port, 'threatbridge_cycles_total{outcome="ok"}'),
    at: performance.now(),
  };
  watcher.close();
  const wallMs = after.at - before.at;
  const byRoute = {};
  for (const [route, n] of Object.entries(after.platform.byRoute)) {
    const d = n - (before.platform.byRoute[route] ?? 0);
    if (d > 0) byRoute[route] = d;
  }
  const githubByRoute = {};
  for (const [route, n] of Object.entries(after.github.byRoute)) {
    const d = n - (before.github.byRoute[route] ?? 0);
    if (d > 0) githubByRoute[route] = d;
  }
  const round = (n, d = 2) => Number(n.toFixed(d));
  console.log(
    JSON.stringify(
      {
        bench: "poll-latency",
        schedule: values.schedule ?? "(default)",
        platformThreats: PLATFORM_THREATS,
        issuesBeforeTheMeasures: issuesBefore,
        writeBudget: values["no-budget"] ? "off" : "(default)",
        backlogSeconds: round(backlogSeconds, 1),
        timeToTicketSeconds: {
          threats: seconds.length,
          min: round(Math.min(...seconds)),
          median: round(median(seconds)),
          max: round(Math.max(...seconds)),
          each: seconds.map((s) => round(s)),
        },
        idle: {
          seconds: round(wallMs / 1000, 1),
          cycles: after.cycles - before.cycles,
          platformRequests: after.platform.requests - before.platform.requests,
          platformTokenRequests: byRoute["POST /oauth/token"] ?? 0,
          platformByRoute: byRoute,
          githubRequests: after.github.requests - before.github.requests,
          githubNotModified: after.github.notModified - before.github.notModified,
          githubRateLimitPoints: after.github.rateLimitPoints - before.github.rateLimitPoints,
          githubByRoute,
          daemonCpuPercentOfOneCore: round(((after.cpu - before.cpu) / wallMs) * 100),
          // The state proper (the database and the cursors' document); the lock's lease (state.json.lock, renewed
          // every 10 s as the holder's sign of life) is not the state and is counted apart.
          stateFileEvents: events.filter((e) => !e.includes(".lock")).length,
          stateFilesTouched: [...new Set(events.filter((e) => !e.includes(".lock")))],
          lockLeaseRenewals: events.filter((e) => e === "rename state.json.lock").length,
        },
      },
      null,
      2,
    ),
  );
} catch (e) {
  console.error(stderr.slice(-4000));
  throw e;
} finally {
  child.kill("SIGTERM");
  await exited;
  await sim.close?.();
  await gh.close();
  rmSync(dir, { recursive: true, force: true });
}
