// How bench/engine-scale.mjs drives the BUILT CLI black-box: the fixture process, a config file,
// and `node dist/cli.js …` in a child process under /usr/bin/time (peak RSS of that child, kB), with
// its wall time measured here (process start included).
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { clearInterval, clearTimeout, setInterval } from "node:timers";

const TIME = "/usr/bin/time";
export const rssMethod = existsSync(TIME)
  ? "peak RSS of the CLI child by /usr/bin/time -f %M (VmHWM of the node process)"
  : "peak RSS of the CLI child from /proc/<pid>/status VmHWM, sampled every 50 ms";

/** Starts bench/scale-fixture.mjs; resolves with its JSON line and a stop(). */
export function startFixture(args, timeoutMs = 900_000) {
  const child = spawn(process.execPath, ["--max-old-space-size=8192", "bench/scale-fixture.mjs", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const stopped = new Promise((resolve) => child.once("exit", resolve));
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      child.kill("SIGTERM");
      reject(new Error("fixture did not start in time"));
    }, timeoutMs);
    child.stdout.on("data", (d) => {
      out += d.toString();
      const nl = out.indexOf("\n");
      if (nl >= 0) {
        clearTimeout(timer);
        resolve({
          ...JSON.parse(out.slice(0, nl)),
          stop: async () => {
            child.kill("SIGTERM");
            await stopped;
          },
        });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`fixture exited ${code}: ${out}`));
    });
  });
}

/** The config file of a run: budget off (GitHub Enterprise Server), JSON logs on stderr. */
export function writeConfig(dir, fx, { minSeverity = "informational" } = {}) {
  const path = join(dir, "threatbridge.yaml");
  writeFileSync(
    path,
    [
      "platform:",
      `  base_url: ${fx.platformUrl}`,
      `  token_url: ${fx.platformUrl}/oauth/token`,
      "  client_id: threatbridge",
      "  client_secret: threatbridge-secret",
      "github:",
      `  api_url: ${fx.githubUrl}`,
      "  token: ghp_bench",
      "  repository: acme/security-threats",
      "  write_budget: { per_minute: 0, per_hour: 0, min_interval_ms: 0 }",
      "state:",
      `  path: ${join(dir, "state.json")}`,
      "log:",
      "  format: json",
      "filters:",
      `  min_severity: ${minSeverity}`,
      "",
    ].join("\n"),
  );
  return path;
}

/** The pids of a process's children (Linux /proc), none when that cannot be read. */
function childrenOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

function vmHwmKb(pid) {
  try {
    const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * Runs `node dist/cli.js ...args`; returns wall ms, peak RSS MB, exit code, stdout and stderr
 * (stderr kept only as lines matching `keep`, so that a million log lines do not pile up here).
 */
export function runCli(args, { cwd, timeoutMs = 1_800_000, keep = null, cli = "dist/cli.js" } = {}) {
  const rssFile = join(cwd, `.rss-${process.pid}-${Date.now()}`);
  const node = [process.execPath, cli, ...args];
  const argv = existsSync(TIME) ? [TIME, "-f", "%U %S %M", "-o", rssFile, ...node] : node;
  const started = performance.now();
  // Its own process group, so that a timeout stops node and not only /usr/bin/time.
  const child = spawn(argv[0], argv.slice(1), { stdio: ["ignore", "pipe", "pipe"], detached: true });
  let sampled = 0;
  const sampler = existsSync(TIME)
    ? null
    : setInterval(() => (sampled = Math.max(sampled, vmHwmKb(child.pid))), 50);
  let stdout = "";
  const kept = [];
  let partial = "";
  child.stdout.on("data", (d) => (stdout += d.toString()));
  child.stderr.on("data", (d) => {
    const lines = (partial + d.toString()).split("\n");
    partial = lines.pop() ?? "";
    if (keep) for (const line of lines) if (keep(line)) kept.push(line);
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    // Under /usr/bin/time, node alone is stopped (SIGTERM, then SIGKILL 10 s later), so that
    // /usr/bin/time still writes the peak RSS and CPU of the stopped run; otherwise the group.
    const node = existsSync(TIME) ? childrenOf(child.pid) : [];
    if (node.length === 0) return process.kill(-child.pid, "SIGTERM");
    for (const pid of node) process.kill(pid, "SIGTERM");
    setTimeout(() => {
      for (const pid of node) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    }, 10_000).unref();
  }, timeoutMs);
  return new Promise((resolve) => {
    child.once("exit", (code) => {
      clearTimeout(timer);
      if (sampler) clearInterval(sampler);
      const wallMs = performance.now() - started;
      let rssKb = sampled;
      // User + system CPU seconds of the child (null without /usr/bin/time).
      let cpuMs = null;
      if (existsSync(rssFile)) {
        const lines = readFileSync(rssFile, "utf8").trim().split("\n");
        const [user, sys, rss] = (lines[lines.length - 1] ?? "").split(" ").map(Number);
        rssKb = rss;
        cpuMs = (user + sys) * 1000;
        // Read once: left behind, it would count in the next state-size figure of the same folder.
        rmSync(rssFile, { force: true });
      }
      resolve({ code, timedOut, wallMs, cpuMs, peakRssMb: rssKb / 1024, stdout, stderrKept: kept });
    });
  });
}

/** Size, newest mtime and a hash of every state file (state.json and anything beside it). */
export function stateFiles(dir) {
  const names = readdirSync(dir)
    .filter((n) => n.startsWith("state"))
    .sort();
  const hash = createHash("sha256");
  let bytes = 0;
  let mtimeMs = 0;
  for (const name of names) {
    const st = statSync(join(dir, name));
    if (!st.isFile()) continue;
    bytes += st.size;
    mtimeMs = Math.max(mtimeMs, st.mtimeMs);
    hash.update(name).update(readFileSync(join(dir, name)));
  }
  return { names, bytes, mtimeMs, hash: hash.digest("hex").slice(0, 16) };
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * The workflow features of the black-box cost benchmarks (feature-costs, everything-on), as config
 * lines: an SLA for every severity with weekly milestones, risk acceptance, `recurrence: new_issue`.
 */
export const WORKFLOW_LINES = [
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
];
