// What `notes` costs (counts, not times), end to end over HTTP against the simulator and the GitHub
// stand-in: N open issues (notes on from the start, so each gets its section once in the backfill),
// then C new people's comments on C issues in one cycle. Counts the repository comment listings
// (GET /repos/{o}/{r}/issues/comments, pages included), the note writes (POST update-note) and the
// threat reads (GET /v1/threats/{id}) of: the backfill, its echo, the comments' cycle, the comments'
// echo and an idle cycle. The contract: at most one listing per repository per cycle (plus its
// pages), never one read per issue; one write per changed section; 0 writes on the echo and idle.
// Usage: npm run build && node bench/notes-costs.mjs [issues] [comments]
import { ConfigSchema } from "../dist/config/index.js";
import { startGitHubStandIn } from "../dist/github-stand-in/index.js";
import { startSimulator } from "../dist/simulator/index.js";
import { runCycle } from "../dist/sync/index.js";
import { addThreats, costsConfig, costsEngine } from "./lib.mjs";

const ISSUES = Number(process.argv[2] ?? 10_000);
const COMMENTS = Number(process.argv[3] ?? 100);
const REPO = "acme/security-threats";
const LIST = "GET /repos/{owner}/{repo}/issues/comments";
const WRITE = "POST /v1/threats/{threat_id}/update-note";
const READ = "GET /v1/threats/{threat_id}";

const sim = await startSimulator({ seed: 13, assets: 200, threats: 0, asyncWriteDelayMs: 0 });
const threatIds = addThreats(sim, ISSUES, {
  extra: (i) => ({ note: i % 2 === 0 ? `Analyst note ${i}.` : "" }),
});

const gh = await startGitHubStandIn({ tokens: ["ghp_bench"], primaryLimit: { perHour: 10_000_000 } });
const config = ConfigSchema.parse(
  costsConfig({ simUrl: sim.url, ghUrl: gh.url, repository: REPO }, { notes: { comments: 3 } }),
);
const { ctx, github } = costsEngine({ config, simUrl: sim.url, ghUrl: gh.url });
// The conversation back (projects, people's comments) is the same client (cli/wiring.ts).
ctx.conversation = github;

async function measured(label, fn) {
  sim.sim.settle();
  const platformBefore = { ...sim.sim.stats().byRoute };
  const ghBefore = { ...gh.counters().byRoute };
  let noteEvents = 0;
  const unsubscribe = ctx.subscribe((e) => {
    if (e.type === "feature_written" && e.action === "note") noteEvents += 1;
  });
  const report = await fn();
  unsubscribe();
  sim.sim.settle();
  const platformAfter = sim.sim.stats().byRoute;
  const ghAfter = gh.counters().byRoute;
  const delta = (after, before, key) => (after[key] ?? 0) - (before[key] ?? 0);
  return {
    label,
    commentListingRequests: delta(ghAfter, ghBefore, LIST),
    noteWrites: delta(platformAfter, platformBefore, WRITE),
    noteEvents,
    threatReads: delta(platformAfter, platformBefore, READ),
    issuesCreated: report.counters.issues_created ?? 0,
    githubWrites: Object.entries(ghAfter)
      .filter(([route]) => !route.startsWith("GET"))
      .reduce((sum, [route, n]) => sum + n - (ghBefore[route] ?? 0), 0),
    ok: report.ok,
  };
}

const results = [];
results.push(await measured("backfill (first cycle)", () => runCycle(ctx)));
results.push(await measured("echo cycle", () => runCycle(ctx)));
// C people's comments on C different issues, plus a bot's on each (left out: no write of its own).
const numbers = [...ctx.state.threats.entries()].flatMap(([, r]) => (r.issue ? [r.issue.number] : []));
for (let i = 0; i < COMMENTS && i < numbers.length; i += 1) {
  gh.person.comment(REPO, numbers[i], `Patched host ${i}.`, "alice");
}
results.push(await measured(`${COMMENTS} people's comments`, () => runCycle(ctx)));
results.push(await measured("echo of the comments' notes", () => runCycle(ctx)));
results.push(await measured("idle cycle", () => runCycle(ctx)));

const sample = sim.sim.getThreat(threatIds[0])?.note ?? "";
console.log(
  JSON.stringify(
    {
      bench: "notes-costs",
      issues: ISSUES,
      comments: COMMENTS,
      node: process.version,
      sampleNote: sample.slice(0, 400),
      results,
    },
    null,
    2,
  ),
);
await gh.close();
await sim.close();
