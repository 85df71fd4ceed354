#!/usr/bin/env node
// How far one threat travels through the engine, measured as it runs (V8's precise coverage, the
// engine in this process against the platform simulator and the GitHub stand-in on 127.0.0.1):
// the functions of src/sync that run while one new threat goes from the stream to its issue and
// its platform link, and the files they are in. A cycle with nothing new runs first and is
// counted apart, so the report says which steps are the threat's own and which are the cycle's;
// with how often the threat was planned and its stored record read and checked.
// `--config '{"sla":{…}}'` adds settings (JSON) to measure a feature's extra steps.
// Usage: npm run build && node scripts/walk-one-threat.mjs [--list] [--config JSON]
import { Session } from "node:inspector/promises";
import { relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ConfigSchema } from "../dist/config/index.js";
import { startGitHubStandIn } from "../dist/github-stand-in/index.js";
import { startSimulator } from "../dist/simulator/index.js";
import { runCycle } from "../dist/sync/index.js";
import { costsConfig, costsEngine } from "../bench/lib.mjs";

const { values } = parseArgs({
  options: { list: { type: "boolean", default: false }, config: { type: "string", default: "{}" } },
});
const here = resolve(import.meta.dirname, "..");
const syncDir = resolve(here, "dist/sync");
const REPO = "acme/security-threats";

const sim = await startSimulator({ seed: 5, assets: 1, threats: 0, asyncWriteDelayMs: 0 });
const gh = await startGitHubStandIn({ tokens: ["ghp_bench"] });
const config = ConfigSchema.parse(
  costsConfig({ simUrl: sim.url, ghUrl: gh.url, repository: REPO }, JSON.parse(values.config)),
);
const { ctx } = costsEngine({ config, simUrl: sim.url, ghUrl: gh.url });

const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });

/** The functions of dist/sync that ran since the last take (`file:function`), with their calls. */
async function ranSinceLastTake() {
  const { result } = await session.post("Profiler.takePreciseCoverage");
  const ran = new Map();
  for (const script of result) {
    if (!script.url.startsWith("file:")) continue;
    const file = fileURLToPath(script.url);
    if (!file.startsWith(syncDir)) continue;
    for (const fn of script.functions) {
      const calls = fn.ranges[0]?.count ?? 0;
      if (calls === 0 || fn.functionName === "") continue;
      const key = `src/sync/${relative(syncDir, file).replace(/\.js$/, ".ts")}:${fn.functionName}`;
      ran.set(key, (ran.get(key) ?? 0) + calls);
    }
  }
  return ran;
}

// The cycle's own steps: one cycle with nothing new (after a first one that read the empty world).
await runCycle(ctx);
await ranSinceLastTake();
await runCycle(ctx);
const idle = await ranSinceLastTake();
// Every read of a stored threat record in the walk (the view's own reads go through `get` too).
const threats = ctx.state.threats;
const read = threats.get.bind(threats);
let reads = 0;
threats.get = (id) => {
  reads += 1;
  return read(id);
};
// One threat appears, and one cycle takes it to its issue and link.
const threat = sim.sim.addThreat({ status: "unsolved", severity: "critical", name: "Walk me" });
const report = await runCycle(ctx);
sim.sim.settle();
const walk = await ranSinceLastTake();
await session.post("Profiler.stopPreciseCoverage");
session.disconnect();

const linked = (sim.sim.getThreat(threat.id)?.external_references ?? []).some((r) => r.system === "github");
const own = [...walk.keys()].filter((key) => !idle.has(key));
const fileOf = (key) => key.slice(0, key.lastIndexOf(":"));
const out = {
  issues_created: report.counters.issues_created ?? 0,
  linked,
  steps: walk.size,
  files: new Set([...walk.keys()].map(fileOf)).size,
  threat_own_steps: own.length,
  threat_own_files: new Set(own.map(fileOf)).size,
  idle_cycle_steps: idle.size,
  // How often the threat was planned, and how often its stored record was read (built or not).
  plans: walk.get("src/sync/plan/plan-for.ts:planFor") ?? 0,
  record_reads: reads,
  record_checks: walk.get("src/sync/records/threat-record-guard.ts:toThreatRecord") ?? 0,
  ...(values.list ? { threat_own: own.sort() } : {}),
};
process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
await Promise.all([sim.close(), gh.close()]);
process.exit(0);
