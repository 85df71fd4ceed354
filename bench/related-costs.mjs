// What `render.related_assets` costs in platform reads (counts, not times), end to end over HTTP
// against the simulator and the GitHub stand-in: N threats on A assets (the simulator's seeded
// relations), related_assets 10. Counts the related walks (the cycle summary's
// `related_asset_walks`) and the requests to GET /v1/assets/{asset_id}/related of the backfill, of
// the echo cycle (the links come back on the stream), of a cycle in which one threat per asset
// changes (one body rewrite each, the lists at hand), and of an idle cycle. The contract: at most
// one walk per asset per cycle, only for assets whose issues are written; 0 when idle.
// Usage: npm run build && node bench/related-costs.mjs [threats] [assets]
import { ConfigSchema } from "../dist/config/index.js";
import { startGitHubStandIn } from "../dist/github-stand-in/index.js";
import { startSimulator } from "../dist/simulator/index.js";
import { runCycle } from "../dist/sync/index.js";
import { addThreats, costsConfig, costsEngine } from "./lib.mjs";

const THREATS = Number(process.argv[2] ?? 10_000);
const ASSETS = Number(process.argv[3] ?? 500);
const REPO = "acme/security-threats";
const ROUTE = "GET /v1/assets/{asset_id}/related";

const sim = await startSimulator({ seed: 11, assets: ASSETS, threats: 0, asyncWriteDelayMs: 0 });
const assets = sim.sim.assetIds();
const threatIds = addThreats(sim, THREATS);

const gh = await startGitHubStandIn({ tokens: ["ghp_bench"], primaryLimit: { perHour: 10_000_000 } });
const config = ConfigSchema.parse(
  costsConfig({ simUrl: sim.url, ghUrl: gh.url, repository: REPO }, { render: { related_assets: 10 } }),
);
const { ctx } = costsEngine({ config, simUrl: sim.url, ghUrl: gh.url });

async function measured(label, fn) {
  sim.sim.settle();
  const requestsBefore = sim.sim.stats().byRoute[ROUTE] ?? 0;
  const writesBefore = gh.counters().writes;
  const walked = new Map();
  const unsubscribe = ctx.subscribe((e) => {
    if (e.type === "related_assets_read") walked.set(e.assetId, (walked.get(e.assetId) ?? 0) + 1);
  });
  const report = await fn();
  unsubscribe();
  return {
    label,
    relatedWalks: report.counters.related_asset_walks ?? 0,
    maxWalksPerAsset: Math.max(0, ...walked.values()),
    relatedRequests: (sim.sim.stats().byRoute[ROUTE] ?? 0) - requestsBefore,
    issuesCreated: report.counters.issues_created ?? 0,
    issuesUpdated: report.counters.issues_updated ?? 0,
    githubWrites: gh.counters().writes - writesBefore,
    ok: report.ok,
  };
}

const results = [];
results.push(await measured("backfill (first cycle)", () => runCycle(ctx)));
results.push(await measured("echo cycle", () => runCycle(ctx)));
// One threat per asset changes its title: one body rewrite each, with the list already at hand.
for (let i = 0; i < assets.length && i < threatIds.length; i += 1) {
  sim.sim.updateThreat(threatIds[i], { name: `Threat ${i} (renamed)` });
}
results.push(await measured(`one threat per asset changes (${assets.length})`, () => runCycle(ctx)));
results.push(await measured("idle cycle", () => runCycle(ctx)));

const listed = gh.issues(REPO).filter((i) => (i.body ?? "").includes("### Related assets")).length;
console.log(
  JSON.stringify(
    {
      bench: "related-costs",
      threats: THREATS,
      assets: ASSETS,
      node: process.version,
      issuesWithSection: listed,
      results,
    },
    null,
    2,
  ),
);
await gh.close();
await sim.close();
