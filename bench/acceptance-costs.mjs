// What risk acceptances cost a cycle (the workflow features' cost targets, BENCHMARKS.md): with 1,000 acceptances
// held in the state and none due, a cycle makes no GitHub read per issue and no write (warnings and
// ends are decided from the state); with some due, exactly their writes. Counts, not times.
// End to end over HTTP against the simulator and the GitHub stand-in; days pass on the engine's
// clock. Usage: node bench/acceptance-costs.mjs [acceptances] [due]
import { ConfigSchema } from "../dist/config/index.js";
import { createGitHub } from "../dist/github/index.js";
import { startGitHubStandIn } from "../dist/github-stand-in/index.js";
import { silentLogger } from "../dist/observability/index.js";
import { emptyState } from "../dist/sync/schema.js";
import { startSimulator } from "../dist/simulator/index.js";
import { createContext, heldAcceptances, runCycle } from "../dist/sync/index.js";
import { platformClient, costsConfig } from "./lib.mjs";

const ACCEPTANCES = Number(process.argv[2] ?? 1000);
const DUE = Number(process.argv[3] ?? 10);
const REPO = "acme/security-threats";
const DAY = 86_400_000;

const sim = await startSimulator({
  seed: 15,
  assets: 80,
  threats: Math.ceil(ACCEPTANCES * 2.2),
  asyncWriteDelayMs: 0,
});
const gh = await startGitHubStandIn({ tokens: ["ghp_bench"] });
const config = ConfigSchema.parse(
  costsConfig(
    { simUrl: sim.url, ghUrl: gh.url, repository: REPO },
    {
      acceptance: { label: "risk-accepted", default: "90d", max: "365d", warn_before: "7d" },
    },
  ),
);
let offset = 0;
const clock = { now: () => Date.now() + offset };
const platform = platformClient(sim.url);
const github = createGitHub({
  apiUrl: gh.url,
  auth: { token: "ghp_bench" },
  writeBudget: { perMinute: 0, perHour: 0, minIntervalMs: 0 },
  managedLabel: "threatbridge",
  clock,
});
const ctx = createContext(
  { config, platform, github, logger: silentLogger, clock, persist: null },
  emptyState(),
);

function delta(after, before) {
  const out = {};
  for (const [k, v] of Object.entries(after)) if (v - (before[k] ?? 0) > 0) out[k] = v - (before[k] ?? 0);
  return out;
}
const sum = (routes, method) =>
  Object.entries(routes)
    .filter(([k]) => k.startsWith(`${method} `))
    .reduce((n, [, v]) => n + v, 0);

async function measured(label, days) {
  offset = days * DAY;
  sim.sim.settle();
  const gBefore = { ...gh.counters(), byRoute: { ...gh.counters().byRoute } };
  const pBefore = { ...sim.sim.stats().byRoute };
  const report = await runCycle(ctx);
  const g = gh.counters();
  const githubByRoute = delta(g.byRoute, gBefore.byRoute);
  const platformByRoute = delta(sim.sim.stats().byRoute, pBefore);
  return {
    label,
    day: days,
    ok: report.ok,
    githubWrites: g.writes - gBefore.writes,
    githubReads: sum(githubByRoute, "GET"),
    githubByRoute,
    platformPatches: sum(platformByRoute, "PATCH"),
    platformByRoute,
    counters: report.counters,
  };
}

// Setup (not measured): issues for the threats, then people accept ACCEPTANCES of them; DUE of
// those type an end 10 days away, the rest take the default (90 days).
await runCycle(ctx);
await runCycle(ctx);
const open = gh
  .issues(REPO)
  .filter((i) => i.state === "open")
  .slice(0, ACCEPTANCES);
if (open.length < ACCEPTANCES)
  throw new Error(`only ${open.length} open issues for ${ACCEPTANCES} acceptances`);
const soon = new Date(Date.now() + 10 * DAY).toISOString().slice(0, 10);
open.forEach((issue, i) => {
  gh.person.relabel(REPO, issue.number, [...issue.labels, "risk-accepted"], "alice");
  if (i < DUE) gh.person.comment(REPO, issue.number, `Accepted until: ${soon}`, "alice");
  gh.person.close(REPO, issue.number, { reason: "not_planned", login: "alice" });
});
const accepting = await measured("people's acceptances processed", 0);
const settle = await measured("echo of the acceptances", 0);

// Measured: cycles with the acceptances held.
const noneDue = await measured(`${ACCEPTANCES} acceptances held, none due`, 1);
const noneDue2 = await measured(`${ACCEPTANCES} acceptances held, none due (again)`, 2);
const warnings = await measured(`${DUE} warnings due`, 4);
const afterWarnings = await measured("warnings sent, none due", 5);
const ends = await measured(`${DUE} ends due`, 11);
const afterEnds = await measured("ends done, none due", 12);

const held = heldAcceptances(ctx.index).size;
const summary = {
  acceptances: ACCEPTANCES,
  due: DUE,
  heldAfterEnds: held,
  noneDue: {
    githubWrites:
      noneDue.githubWrites + noneDue2.githubWrites + afterWarnings.githubWrites + afterEnds.githubWrites,
    githubReadsPerCycle: [noneDue, noneDue2, afterWarnings, afterEnds].map((m) => m.githubReads),
    platformPatches: noneDue.platformPatches + noneDue2.platformPatches + afterWarnings.platformPatches,
  },
  warnings: {
    githubWrites: warnings.githubWrites,
    githubWritesExpected: DUE,
    githubReads: warnings.githubReads,
    platformPatches: warnings.platformPatches,
  },
  ends: {
    githubWrites: ends.githubWrites,
    githubWritesExpected: 2 * DUE,
    githubReads: ends.githubReads,
    platformPatches: ends.platformPatches,
    platformPatchesExpected: DUE,
  },
  acceptingCycle: {
    githubWrites: accepting.githubWrites,
    githubReads: accepting.githubReads,
    platformPatches: accepting.platformPatches,
  },
};
console.log(
  JSON.stringify(
    { summary, cycles: [accepting, settle, noneDue, noneDue2, warnings, afterWarnings, ends, afterEnds] },
    null,
    2,
  ),
);
await platform.close();
await github.close?.();
await Promise.all([sim.close(), gh.close()]);
