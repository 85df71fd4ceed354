// What grouping costs in GitHub writes (counts, not times), end to end over HTTP against the
// simulator and the GitHub stand-in: N low threats on A assets, `grouping: { by: asset }`, parent
// mode. Counts the writes of the backfill (issues, parents, attaches), of a cycle in which members
// join every group, and of an idle cycle; and the most parent updates any one group got in a cycle
// (the contract: at most one, however many members join).
// Single mode (4th argument `single`): one issue per group, none per threat.
// Usage: npm run build && node bench/group-costs.mjs [threats] [assets] [joiners per group] [parent|single]
import { ConfigSchema } from "../dist/config/index.js";
import { startGitHubStandIn } from "../dist/github-stand-in/index.js";
import { startSimulator } from "../dist/simulator/index.js";
import { runCycle } from "../dist/sync/index.js";
import { costsConfig, costsEngine } from "./lib.mjs";

const THREATS = Number(process.argv[2] ?? 10_000);
const ASSETS = Number(process.argv[3] ?? 500);
const JOINERS = Number(process.argv[4] ?? 4);
const MODE = process.argv[5] ?? "parent";
const REPO = "acme/security-threats";

const sim = await startSimulator({ seed: 11, assets: ASSETS, threats: 0, asyncWriteDelayMs: 0 });
const assets = sim.sim.assetIds();
const addLow = (i) =>
  sim.sim.addThreat({
    status: "unsolved",
    severity: "low",
    asset_id: assets[i % assets.length],
    name: `Low threat ${i}`,
  });
for (let i = 0; i < THREATS; i += 1) addLow(i);

// GitHub.com's 5,000 points an hour would stop the backfill half way: the counts are the subject.
const gh = await startGitHubStandIn({ tokens: ["ghp_bench"], primaryLimit: { perHour: 10_000_000 } });
const config = ConfigSchema.parse(
  costsConfig(
    { simUrl: sim.url, ghUrl: gh.url, repository: REPO },
    {
      grouping: { by: "asset", mode: MODE },
    },
  ),
);
const { ctx } = costsEngine({ config, simUrl: sim.url, ghUrl: gh.url });

/** Writes by route during `fn`, and the parent updates per group. */
async function measured(label, fn) {
  sim.sim.settle();
  const before = { ...gh.counters().byRoute };
  const writesBefore = gh.counters().writes;
  const perGroup = new Map();
  const unsubscribe = ctx.subscribe((e) => {
    if (e.type === "group_written" && e.detail === "update")
      perGroup.set(e.threatId, (perGroup.get(e.threatId) ?? 0) + 1);
  });
  const started = performance.now();
  const report = await fn();
  unsubscribe();
  const after = gh.counters().byRoute;
  const writes = {};
  for (const [route, n] of Object.entries(after)) {
    if (route.startsWith("GET ")) continue;
    const d = n - (before[route] ?? 0);
    if (d > 0) writes[route] = d;
  }
  return {
    label,
    seconds: Number(((performance.now() - started) / 1000).toFixed(1)),
    githubWrites: gh.counters().writes - writesBefore,
    platformLinks: report.counters.platform_links ?? 0,
    verdicts: report.counters.platform_verdicts ?? 0,
    writes,
    parentUpdates: [...perGroup.values()].reduce((a, b) => a + b, 0),
    maxParentUpdatesPerGroup: Math.max(0, ...perGroup.values()),
    ok: report.ok,
  };
}

const results = [];
results.push(await measured("backfill (first cycle)", () => runCycle(ctx)));
results.push(await measured("echo cycle", () => runCycle(ctx)));
for (let i = 0; i < JOINERS * assets.length; i += 1) addLow(THREATS + i);
results.push(await measured(`${JOINERS} members join each of ${assets.length} groups`, () => runCycle(ctx)));
results.push(await measured("echo cycle after the joins", () => runCycle(ctx)));
results.push(await measured("idle cycle", () => runCycle(ctx)));

const parents = gh.issues(REPO).filter((i) => i.labels.includes("threatbridge:group"));
const attached = gh.issues(REPO).filter((i) => i.parentId !== null).length;
console.log(
  JSON.stringify(
    {
      mode: MODE,
      threats: THREATS,
      assets: ASSETS,
      joiners: JOINERS * assets.length,
      node: process.version,
      parents: parents.length,
      attached,
      results,
    },
    null,
    2,
  ),
);
await gh.close();
await sim.close();
