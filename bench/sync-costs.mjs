// What one cycle of the engine costs, end to end over HTTP against the simulator and the GitHub
// stand-in: GitHub writes per new eligible threat, per platform status change, per echo of the
// connector's own writes; rate-limit points per idle cycle; platform token requests per token
// lifetime. Usage: node bench/sync-costs.mjs [threats]
import { ConfigSchema } from "../dist/config/index.js";
import { createGitHub } from "../dist/github/index.js";
import { startGitHubStandIn } from "../dist/github-stand-in/index.js";
import { silentLogger } from "../dist/observability/index.js";
import { emptyState } from "../dist/sync/schema.js";
import { startSimulator } from "../dist/simulator/index.js";
import { createContext, runCycle } from "../dist/sync/index.js";
import { platformClient, costsConfig } from "./lib.mjs";

const THREATS = Number(process.argv[2] ?? 300);
const REPO = "acme/security-threats";
const TOKEN_TTL = 300;

const sim = await startSimulator({
  seed: 5,
  assets: 60,
  threats: THREATS,
  tokenTtlSeconds: TOKEN_TTL,
  asyncWriteDelayMs: 0,
});
const gh = await startGitHubStandIn({ tokens: ["ghp_bench"] });
const config = ConfigSchema.parse(costsConfig({ simUrl: sim.url, ghUrl: gh.url, repository: REPO }));
const clock = { now: () => Date.now() };
const platform = platformClient(sim.url);
const github = createGitHub({
  apiUrl: gh.url,
  auth: { token: "ghp_bench" },
  writeBudget: { perMinute: 0, perHour: 0, minIntervalMs: 0 },
  managedLabel: "threatbridge",
});
const ctx = createContext(
  { config, platform, github, logger: silentLogger, clock, persist: null },
  emptyState(),
);

/** GETs by route (a 304 included: it is a request, though it costs no rate-limit point). */
function githubReadsOf(byRoute) {
  return Object.entries(byRoute)
    .filter(([k]) => k.startsWith("GET "))
    .reduce((n, [, v]) => n + v, 0);
}

async function measured(label, fn) {
  sim.sim.settle();
  const before = { ...gh.counters(), byRoute: { ...gh.counters().byRoute } };
  const platformBefore = platform.stats();
  const started = performance.now();
  const report = await fn();
  const after = gh.counters();
  return {
    label,
    seconds: Number(((performance.now() - started) / 1000).toFixed(2)),
    githubWrites: after.writes - before.writes,
    githubReads: githubReadsOf(after.byRoute) - githubReadsOf(before.byRoute),
    rateLimitPoints: after.rateLimitPoints - before.rateLimitPoints,
    platformRequests: platform.stats().requests - platformBefore.requests,
    counters: report.counters,
    ok: report.ok,
  };
}

const started = Date.now();
const backfill = await measured("backfill", () => runCycle(ctx));
const created = backfill.counters.issues_created ?? 0;
const echo = await measured("echo of the connector's own links", () => runCycle(ctx));
const idle = await measured("idle cycle", () => runCycle(ctx));

// Platform status changes of mapped threats: solved closes, false_positive closes, unsolved reopens.
const mapped = [...ctx.state.threats.entries()]
  .filter(([, r]) => r.issue && r.issue.state === "open")
  .map(([id]) => id);
const changes = mapped.slice(0, 60);
changes.forEach((id, i) => sim.sim.updateThreat(id, { status: i % 2 === 0 ? "solved" : "false_positive" }));
const statusChange = await measured("platform status changes (close)", () => runCycle(ctx));
const echo2 = await measured("echo after status changes", () => runCycle(ctx));
const reopened = changes.slice(0, 30);
reopened.forEach((id) => sim.sim.updateThreat(id, { status: "unsolved" }));
const reopen = await measured("platform status changes (reopen)", () => runCycle(ctx));

// People's closes on GitHub become verdicts.
const people = mapped.slice(60, 90).map((id) => ctx.state.threats.get(id).issue.number);
people.forEach((n) => gh.person.close(REPO, n, { reason: "completed", login: "alice" }));
const verdicts = await measured("people's closes → verdicts", () => runCycle(ctx));
const verdictEcho = await measured("echo after verdicts", () => runCycle(ctx));
const elapsed = (Date.now() - started) / 1000;

// The mixed batch: 20 new threats, 20 platform closes, 10 reopens of issues the
// platform closed, 10 title edits, 20 people's closes, all seen by one cycle and its drain, then the
// echo cycle. Minimum GitHub writes: 20 creates + 20 closes + 10 (reopen + its comment) + 10 edits.
function githubRoutes() {
  return { ...gh.counters().byRoute };
}
function delta(after, before) {
  const out = {};
  for (const [k, v] of Object.entries(after)) if (v - (before[k] ?? 0) > 0) out[k] = v - (before[k] ?? 0);
  return out;
}
const openNow = () =>
  [...ctx.state.threats.entries()]
    .filter(([, r]) => r.issue && r.issue.state === "open" && !r.gone)
    .map(([id]) => id);
const closedNow = () =>
  [...ctx.state.threats.entries()]
    .filter(([, r]) => r.issue && r.issue.state === "closed" && !r.gone && r.status !== "pending")
    .map(([id]) => id);
const pool = openNow().slice(90);
const toClose = pool.slice(0, 20);
const toEdit = pool.slice(20, 30);
const byPeople = pool.slice(30, 50);
const toReopen = closedNow().slice(0, 10);
const batchBefore = { ...gh.counters() };
const routesBefore = githubRoutes();
const simBefore = sim.sim.stats().byRoute;
for (let i = 0; i < 20; i += 1) sim.sim.addThreat({ status: "unsolved", severity: "high" });
toClose.forEach((id) => sim.sim.updateThreat(id, { status: "solved" }));
toReopen.forEach((id) => sim.sim.updateThreat(id, { status: "unsolved" }));
toEdit.forEach((id, i) => sim.sim.updateThreat(id, { name: `Edited title ${i}` }));
byPeople.forEach((id) =>
  gh.person.close(REPO, ctx.state.threats.get(id).issue.number, { reason: "completed", login: "bob" }),
);
const batchCycle = await measured("mixed batch", () => runCycle(ctx));
const batchEcho = await measured("echo after the mixed batch", () => runCycle(ctx));
const batchAfter = gh.counters();
const batchRoutes = delta(githubRoutes(), routesBefore);
const mixedBatch = {
  units: {
    newThreats: 20,
    platformCloses: toClose.length,
    reopens: toReopen.length,
    titleEdits: toEdit.length,
    peopleCloses: byPeople.length,
  },
  githubWrites: batchAfter.writes - batchBefore.writes,
  githubWritesMinimum: 20 + toClose.length + 2 * toReopen.length + toEdit.length,
  githubReads: githubReadsOf(batchRoutes),
  githubNotModified: batchAfter.notModified - batchBefore.notModified,
  githubByRoute: batchRoutes,
  platformByRoute: delta(sim.sim.stats().byRoute, simBefore),
  echoWrites: batchEcho.githubWrites,
  ok: batchCycle.ok && batchEcho.ok,
};

// Token reuse: a virtual clock shared by a second simulator and client, a stream read every 10
// virtual seconds for 30 virtual minutes (6 token lifetimes of 300 s).
const virtual = {
  t: Date.now(),
  now() {
    return this.t;
  },
};
const sim2 = await startSimulator({
  seed: 6,
  assets: 5,
  threats: 20,
  tokenTtlSeconds: TOKEN_TTL,
  clock: virtual,
});
const client2 = platformClient(sim2.url, { clock: virtual });
const VIRTUAL_SECONDS = 1800;
for (let t = 0; t < VIRTUAL_SECONDS; t += 10) {
  for await (const _page of client2.streamThreats(null)) {
    // reading is the point
  }
  virtual.t += 10_000;
}
const tokenReuse = {
  virtualSeconds: VIRTUAL_SECONDS,
  tokenLifetimes: VIRTUAL_SECONDS / TOKEN_TTL,
  tokenRequests: client2.stats().tokenRequests,
  requests: client2.stats().requests,
};
await client2.close();
await sim2.close();

const per = (n, d) => (d === 0 ? null : Number((n / d).toFixed(3)));
const summary = {
  threats: THREATS,
  issuesCreated: created,
  githubWritesPerNewEligibleThreat: per(backfill.githubWrites, created),
  githubWritesPerPlatformStatusChange_close: per(statusChange.githubWrites, changes.length),
  githubWritesPerPlatformStatusChange_reopenWithComment: per(reopen.githubWrites, reopened.length),
  githubWritesPerEcho: per(echo.githubWrites + echo2.githubWrites + verdictEcho.githubWrites, 3),
  githubWritesPerPersonVerdict: per(verdicts.githubWrites, people.length),
  rateLimitPointsPerIdleCycle: idle.rateLimitPoints,
  platformTokenRequestsThisRun: platform.stats().tokenRequests,
  tokenLifetimesThisRun: Number((elapsed / TOKEN_TTL).toFixed(2)),
  platformTokenRequestsPerTokenLifetime_busyForSixLifetimes: per(
    tokenReuse.tokenRequests,
    tokenReuse.tokenLifetimes,
  ),
  tokenReuse,
  mixedBatch,
  phases: [
    backfill,
    echo,
    idle,
    statusChange,
    echo2,
    reopen,
    verdicts,
    verdictEcho,
    batchCycle,
    batchEcho,
  ].map(({ counters: _c, ...p }) => p),
};
console.log(JSON.stringify({ bench: "sync-costs", ...summary }, null, 2));
await platform.close();
await Promise.all([sim.close(), gh.close()]);
