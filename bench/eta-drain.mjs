// The backlog ETA shown on `sync`'s progress line against the drain it announces: the simulator
// and the GitHub stand-in in this process, `node <dist>/cli.js sync` in a child with
// THREATBRIDGE_PROGRESS=1 (one progress line per refresh on stderr), each line timed as it arrives.
// For the line where the queue is longest, and for every line, the ETA shown is compared with the
// time the sync still took after it (to its exit).
//   node bench/eta-drain.mjs [threats=100] [per_minute=80] [per_hour=500] [min_interval_ms=1000] [dist=dist]
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [threats = "100", perMinute = "80", perHour = "500", minInterval = "1000", distArg = "dist"] =
  process.argv.slice(2);
const dist = resolve(distArg);
const { startSimulator } = await import(pathToFileURL(join(dist, "simulator/index.js")).href);
const { startGitHubStandIn } = await import(pathToFileURL(join(dist, "github-stand-in/index.js")).href);

const sim = await startSimulator({ seed: 7, assets: 8, threats: Number(threats) });
const gh = await startGitHubStandIn({ tokens: ["ghp_bench"] });
const dir = mkdtempSync(join(tmpdir(), "threatbridge-eta-"));
const config = join(dir, "threatbridge.yaml");
writeFileSync(
  config,
  [
    "platform:",
    `  base_url: ${sim.url}`,
    `  token_url: ${sim.url}/oauth/token`,
    "  client_id: threatbridge",
    "  client_secret: threatbridge-secret",
    "github:",
    `  api_url: ${gh.url}`,
    "  token: ghp_bench",
    "  repository: acme/security-threats",
    `  write_budget: { per_minute: ${perMinute}, per_hour: ${perHour}, min_interval_ms: ${minInterval} }`,
    "state:",
    `  path: ${join(dir, "state.json")}`,
    "filters:",
    "  min_severity: informational",
    "",
  ].join("\n"),
);

const started = performance.now();
const child = spawn(process.execPath, [join(dist, "cli.js"), "sync", "-c", config], {
  env: { PATH: process.env.PATH ?? "", THREATBRIDGE_PROGRESS: "1", THREATBRIDGE_LOG_LEVEL: "warn" },
  stdio: ["ignore", "pipe", "pipe"],
});
const lines = [];
let partial = "";
child.stderr.on("data", (d) => {
  const at = performance.now();
  const parts = (partial + d.toString()).split("\n");
  partial = parts.pop() ?? "";
  for (const text of parts) {
    const m = /queued (\d+); ETA (?:about (?:(\d+) h ?)?(?:(\d+) min ?)?(?:(\d+) s)?|nothing queued)/.exec(
      text,
    );
    if (!m) continue;
    const eta = (Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0)) * 60 + Number(m[4] ?? 0);
    lines.push({ at, queued: Number(m[1]), eta, text });
  }
});
let stdout = "";
child.stdout.on("data", (d) => (stdout += d.toString()));
const code = await new Promise((res) => child.once("exit", res));
const ended = performance.now();
await gh.close();
await sim.close();
rmSync(dir, { recursive: true, force: true });

const longest = lines.reduce((a, b) => (b.queued > (a?.queued ?? -1) ? b : a), null);
const errors = lines.filter((l) => l.queued > 0).map((l) => l.eta - (ended - l.at) / 1000);
console.log(
  JSON.stringify(
    {
      bench: "eta-drain",
      dist: distArg,
      threats: Number(threats),
      budget: { perMinute: Number(perMinute), perHour: Number(perHour), minIntervalMs: Number(minInterval) },
      exit: code,
      summary: stdout.trim().split("\n").at(-1),
      wallSeconds: Math.round((ended - started) / 100) / 10,
      atLongestQueue: longest && {
        queued: longest.queued,
        line: longest.text,
        etaShownSeconds: longest.eta,
        tookSeconds: Math.round((ended - longest.at) / 100) / 10,
      },
      // ETA shown minus the time the sync still took, over every progress line with work queued.
      etaErrorSeconds: errors.length
        ? {
            lines: errors.length,
            min: Math.round(Math.min(...errors)),
            median: Math.round(errors.sort((a, b) => a - b)[Math.floor(errors.length / 2)]),
            max: Math.round(Math.max(...errors)),
          }
        : null,
    },
    null,
    2,
  ),
);
