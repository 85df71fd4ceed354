// What `notes.to_github` costs (counts, not times), end to end over HTTP against the simulator and
// the GitHub stand-in: N open issues (half made while their threat's note holds analyst text, which
// their body shows), then C analysts' changes of the note in one cycle. Counts the note comments
// (POST …/issues/{n}/comments and `note_comment` events) and the per-issue comment reads
// (GET …/issues/{n}/comments) of: the backfill, its echo, the changes' cycle, their echo, an idle
// cycle, and a lost state (a new engine on an empty state) until it settles. The contract: one
// comment per change and 0 reads per issue; 0 writes on the echo and idle; after a lost state at
// most one comment read per issue whose threat has analyst text, and no comment for a text shown.
// Then the switch-on, in a second world: N issues made with `to_github` off, then an engine over that
// state with it on (issues that existed when it was switched on): the platform reads of its backfill
// (one walk of the threat listing, no read per threat), its comment reads per issue and its
// comments until it settles, and an idle cycle after. The contract: one comment and at most one
// comment read per issue whose threat has analyst text, none for the others; idle: nothing.
// Usage: npm run build && node bench/notes-to-github-costs.mjs [issues] [changes]
import { ConfigSchema } from "../dist/config/index.js";
import { startGitHubStandIn } from "../dist/github-stand-in/index.js";
import { startSimulator } from "../dist/simulator/index.js";
import { createGitHub } from "../dist/github/index.js";
import { silentLogger } from "../dist/observability/index.js";
import { emptyState } from "../dist/sync/schema.js";
import { createContext, runCycle } from "../dist/sync/index.js";
import { addThreats, costsConfig, costsEngine, platformClient } from "./lib.mjs";

const ISSUES = Number(process.argv[2] ?? 10_000);
const CHANGES = Number(process.argv[3] ?? 100);
const REPO = "acme/security-threats";
const BEGIN = "--- threatbridge: GitHub ---";
const POST = "POST /repos/{owner}/{repo}/issues/{issue_number}/comments";
const READ = "GET /repos/{owner}/{repo}/issues/{issue_number}/comments";
const LISTING = "GET /v1/threats";
const ONE_THREAT = "GET /v1/threats/{id}";

const sim = await startSimulator({ seed: 13, assets: 200, threats: 0, asyncWriteDelayMs: 0 });
const threatIds = addThreats(sim, ISSUES, {
  extra: (i) => ({ note: i % 2 === 0 ? `Analyst note ${i}.` : "" }),
});
const withText = Math.ceil(ISSUES / 2);

const gh = await startGitHubStandIn({ tokens: ["ghp_bench"], primaryLimit: { perHour: 10_000_000 } });
const config = ConfigSchema.parse(
  costsConfig(
    { simUrl: sim.url, ghUrl: gh.url, repository: REPO },
    { notes: { comments: 0, to_github: true } },
  ),
);
let { ctx } = costsEngine({ config, simUrl: sim.url, ghUrl: gh.url });

async function measured(label, fn, world = { sim, gh }) {
  const { sim, gh } = world;
  sim.sim.settle();
  const before = { ...gh.counters().byRoute };
  const platformBefore = { ...sim.sim.stats().byRoute };
  let events = 0;
  const unsubscribe = ctx.subscribe((e) => {
    if (e.type === "feature_written" && e.action === "note_comment") events += 1;
  });
  const reports = await fn();
  unsubscribe();
  sim.sim.settle();
  const after = gh.counters().byRoute;
  const delta = (key) => (after[key] ?? 0) - (before[key] ?? 0);
  const platformAfter = sim.sim.stats().byRoute;
  const platformDelta = (key) => (platformAfter[key] ?? 0) - (platformBefore[key] ?? 0);
  return {
    label,
    noteComments: delta(POST),
    noteCommentEvents: events,
    perIssueCommentReads: delta(READ),
    threatListingPages: platformDelta(LISTING),
    perThreatReads: platformDelta(ONE_THREAT),
    githubWrites: Object.entries(after)
      .filter(([route]) => !route.startsWith("GET"))
      .reduce((sum, [route, n]) => sum + n - (before[route] ?? 0), 0),
    ok: [reports].flat().every((r) => r.ok),
  };
}

/** The analyst edits the note, keeping the connector's section as it is. */
function analystWrites(id, text) {
  const note = String(sim.sim.getThreat(id)?.note ?? "");
  const at = note.indexOf(BEGIN);
  const section = at >= 0 ? note.slice(at) : "";
  sim.sim.updateThreat(id, { note: section === "" ? text : `${text}\n\n${section}` });
}

const results = [];
results.push(await measured("backfill (first cycle)", () => runCycle(ctx)));
results.push(await measured("echo cycle", () => runCycle(ctx)));
for (let i = 0; i < CHANGES && i < threatIds.length; i += 1) analystWrites(threatIds[i], `Changed ${i}.`);
results.push(await measured(`${CHANGES} analysts' changes`, () => runCycle(ctx)));
results.push(await measured("echo of the changes", () => runCycle(ctx)));
results.push(await measured("idle cycle", () => runCycle(ctx)));
// A lost state: a new engine on an empty state reads both sides from the start.
({ ctx } = costsEngine({ config, simUrl: sim.url, ghUrl: gh.url }));
results.push(
  await measured("lost state, until settled (3 cycles)", async () => [
    await runCycle(ctx),
    await runCycle(ctx),
    await runCycle(ctx),
  ]),
);

// The switch-on, in a world of its own: ISSUES issues made with `to_github` off (half of their
// threats' notes holding analyst text), then an engine over that state with `to_github` on.
const sim2 = await startSimulator({ seed: 14, assets: 200, threats: 0, asyncWriteDelayMs: 0 });
addThreats(sim2, ISSUES, { extra: (i) => ({ note: i % 2 === 0 ? `Analyst note ${i}.` : "" }) });
const gh2 = await startGitHubStandIn({ tokens: ["ghp_bench"], primaryLimit: { perHour: 10_000_000 } });
const second = { sim: sim2, gh: gh2 };

/** An engine over a state (a restart with another `notes.to_github`): the cost engine's clients. */
function engineOver(state, toGithub) {
  const next = ConfigSchema.parse(
    costsConfig(
      { simUrl: sim2.url, ghUrl: gh2.url, repository: REPO },
      { notes: { comments: 0, to_github: toGithub } },
    ),
  );
  const github = createGitHub({
    apiUrl: gh2.url,
    auth: { token: "ghp_bench" },
    writeBudget: { perMinute: 0, perHour: 0, minIntervalMs: 0 },
    managedLabel: "threatbridge",
  });
  return createContext(
    {
      config: next,
      platform: platformClient(sim2.url),
      github,
      workflow: github,
      conversation: github,
      logger: silentLogger,
      clock: { now: () => Date.now() },
      persist: null,
    },
    state,
  );
}

ctx = engineOver(emptyState(), false);
// Made, their sections written, and those writes' echo read.
for (let i = 0; i < 3; i += 1) await runCycle(ctx);
ctx = engineOver(ctx.state, true);
results.push(
  await measured(
    `to_github switched on over ${ISSUES} issues made while it was off, until settled`,
    async () => {
      const reports = [];
      for (let i = 0; i < 20; i += 1) {
        const report = await runCycle(ctx);
        reports.push(report);
        if (report.queue.total === 0 && ctx.state.features?.notes?.backfill === "done") break;
      }
      return reports;
    },
    second,
  ),
);
results.push(await measured("idle cycle after the switch-on", () => runCycle(ctx), second));

console.log(
  JSON.stringify(
    {
      bench: "notes-to-github-costs",
      issues: ISSUES,
      issuesWithAnalystText: withText,
      changes: CHANGES,
      node: process.version,
      results,
    },
    null,
    2,
  ),
);
await gh.close();
await gh2.close();
await sim2.close();
await sim.close();
