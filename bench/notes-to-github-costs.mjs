// What `notes.to_github` costs (counts, not times), end to end over HTTP against the simulator and
// the GitHub stand-in: N open issues (half made while their threat's note holds analyst text, which
// their body shows), then C analysts' changes of the note in one cycle. Counts the note comments
// (POST …/issues/{n}/comments and `note_comment` events) and the per-issue comment reads
// (GET …/issues/{n}/comments) of: the backfill, its echo, the changes' cycle, their echo, an idle
// cycle, and a lost state (a new engine on an empty state) until it settles. The contract: one
// comment per change and 0 reads per issue; 0 writes on the echo and idle; after a lost state at
// most one comment read per issue whose threat has analyst text, and no comment for a text shown.
// Usage: npm run build && node bench/notes-to-github-costs.mjs [issues] [changes]
import { ConfigSchema } from "../dist/config/index.js";
import { startGitHubStandIn } from "../dist/github-stand-in/index.js";
import { startSimulator } from "../dist/simulator/index.js";
import { runCycle } from "../dist/sync/index.js";
import { addThreats, costsConfig, costsEngine } from "./lib.mjs";

const ISSUES = Number(process.argv[2] ?? 10_000);
const CHANGES = Number(process.argv[3] ?? 100);
const REPO = "acme/security-threats";
const BEGIN = "--- threatbridge: GitHub ---";
const POST = "POST /repos/{owner}/{repo}/issues/{issue_number}/comments";
const READ = "GET /repos/{owner}/{repo}/issues/{issue_number}/comments";

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

async function measured(label, fn) {
  sim.sim.settle();
  const before = { ...gh.counters().byRoute };
  let events = 0;
  const unsubscribe = ctx.subscribe((e) => {
    if (e.type === "feature_written" && e.action === "note_comment") events += 1;
  });
  const reports = await fn();
  unsubscribe();
  sim.sim.settle();
  const after = gh.counters().byRoute;
  const delta = (key) => (after[key] ?? 0) - (before[key] ?? 0);
  return {
    label,
    noteComments: delta(POST),
    noteCommentEvents: events,
    perIssueCommentReads: delta(READ),
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
await sim.close();
