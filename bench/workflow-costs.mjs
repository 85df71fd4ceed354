// What the SLA's time-driven work costs GitHub in one cycle (contract, "Workflow": SLA): a state of
// N open issues with due dates (some past due, most not), the engine of dist/ in this process, the
// simulator (no threats: nothing changes on the platform) and the GitHub stand-in over HTTP. Counts,
// not times: GitHub reads and writes of a cycle where nothing is due, of the cycle where some
// issues pass their due date, and of the cycle after it. Expected: no read per issue; writes = the
// number newly breached; zero when nothing is due.
// Usage: npm run build && node bench/workflow-costs.mjs [issues] [breached]
import { ConfigSchema } from "../dist/config/index.js";
import { createGitHub } from "../dist/github/index.js";
import { startGitHubStandIn } from "../dist/github-stand-in/index.js";
import { silentLogger } from "../dist/observability/index.js";
import { emptyState } from "../dist/sync/schema.js";
import { startSimulator } from "../dist/simulator/index.js";
import { createContext, runCycle } from "../dist/sync/index.js";
import { platformClient, costsConfig } from "./lib.mjs";

const ISSUES = Number(process.argv[2] ?? 10_000);
const BREACHED = Number(process.argv[3] ?? 250);
const REPO = "acme/security-threats";
const TOKEN = "ghp_bench";
const DAY = 86_400_000;

const sim = await startSimulator({ seed: 5, assets: 0, threats: 0, asyncWriteDelayMs: 0 });
// No primary limit in the way of seeding the issues.
const gh = await startGitHubStandIn({ tokens: [TOKEN], primaryLimit: { perHour: 1_000_000_000 } });

/** The issues the state maps, made on the stand-in over HTTP (eight at a time). */
async function seedIssues(n) {
  const numbers = [];
  let next = 0;
  async function worker() {
    while (next < n) {
      next += 1;
      const res = await fetch(`${gh.url}/repos/${REPO}/issues`, {
        method: "POST",
        headers: { authorization: `token ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ title: "threat", body: "b", labels: ["threatbridge"] }),
      });
      if (res.status !== 201) throw new Error(`seeding answered ${res.status}`);
      numbers.push((await res.json()).number);
    }
  }
  await Promise.all(Array.from({ length: 8 }, worker));
  return numbers.sort((a, b) => a - b);
}

const seedStart = Date.now();
const numbers = await seedIssues(ISSUES);
const seedSeconds = (Date.now() - seedStart) / 1000;

// The clock: T0 now, the measured cycle a day later. BREACHED issues fall due between the two;
// the rest are due weeks later (and one is due within the week: counted by status and /metrics).
let offset = 0;
const T0 = Date.now();
const clock = { now: () => Date.now() + offset };
const state = emptyState();
numbers.forEach((number, i) => {
  const id = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
  const due = i < BREACHED ? T0 + DAY / 2 : T0 + (20 + (i % 60)) * DAY;
  state.threats[id] = {
    status: "unsolved",
    severity: 3,
    assetId: null,
    updatedAt: new Date(T0 - DAY).toISOString(),
    issue: { repo: REPO, number, url: `${gh.url}/${REPO}/issues/${number}`, state: "open", hash: "h" },
    link: `${REPO}#${number}`,
    sla: { since: new Date(T0 - 10 * DAY).toISOString(), due: new Date(due).toISOString() },
  };
});

const config = ConfigSchema.parse(
  costsConfig(
    { simUrl: sim.url, ghUrl: gh.url, repository: REPO, token: TOKEN },
    {
      sla: { critical: "7d", high: "30d", medium: "90d", low: "180d" },
    },
  ),
);
const github = createGitHub({
  apiUrl: gh.url,
  auth: { token: TOKEN },
  writeBudget: { perMinute: 0, perHour: 0, minIntervalMs: 0 },
  managedLabel: "threatbridge",
});
const platform = platformClient(sim.url);
const ctx = createContext(
  { config, platform, github, workflow: github, logger: silentLogger, clock, persist: null },
  state,
);

const reads = (byRoute) =>
  Object.entries(byRoute)
    .filter(([k]) => k.startsWith("GET "))
    .reduce((n, [, v]) => n + v, 0);
const perIssueReads = (byRoute) => byRoute["GET /repos/{owner}/{repo}/issues/{issue_number}"] ?? 0;

async function measured(label) {
  const before = { ...gh.counters(), byRoute: { ...gh.counters().byRoute } };
  const report = await runCycle(ctx);
  const after = gh.counters();
  const labelled = gh.issues(REPO).filter((i) => i.labels.includes("sla:breached")).length;
  return {
    label,
    ok: report.ok,
    githubWrites: after.writes - before.writes,
    githubReads: reads(after.byRoute) - reads(before.byRoute),
    githubPerIssueReads: perIssueReads(after.byRoute) - perIssueReads(before.byRoute),
    breachLabels: report.counters.sla_breach_labels ?? 0,
    issuesLabelled: labelled,
  };
}

// The first cycle of a process lists every issue of the repository once (its change list from
// the start): the warm-up, not the steady state. Nothing is due at T0.
const warmUp = await measured("first cycle of the process at T0 (nothing due)");
offset = DAY / 4;
const idle = await measured("T0 + 6 h: nothing due");
offset = DAY;
const breach = await measured(`T0 + 1 day: ${BREACHED} issues newly past their due date`);
const after = await measured("the next cycle (nothing newly due)");

const result = {
  at: new Date().toISOString(),
  issues: ISSUES,
  breachedExpected: BREACHED,
  seedSeconds: Number(seedSeconds.toFixed(1)),
  cycles: [warmUp, idle, breach, after],
  check: {
    noPerIssueRead: [idle, breach, after].every((c) => c.githubPerIssueReads === 0),
    writesEqualNewlyBreached: breach.githubWrites === BREACHED,
    zeroWritesWhenNothingDue: idle.githubWrites === 0 && after.githubWrites === 0,
  },
};
console.log(JSON.stringify(result, null, 2));
await platform.close?.();
await Promise.all([sim.close(), gh.close()]);
if (!Object.values(result.check).every(Boolean)) process.exitCode = 1;
