// What `github.project` costs in GitHub requests (counts, not times), end to end over HTTP against
// the simulator and the GitHub stand-in: N new threats, each issue added to an organization's project
// whose fields are Severity (single-select, "{{ threat.severity }}") and Due (date, "{{ sla.due }}":
// no SLA configured, so empty, left unset). Counts the project's requests by route in the first
// cycle (N creates: N adds, at most one field PATCH per item), the echo cycle (the links come back
// on the stream), a cycle in which one threat's severity changes (one PATCH), and an idle cycle
// (0). Usage: npm run build && node bench/project-costs.mjs [threats]
import { ConfigSchema } from "../dist/config/index.js";
import { startGitHubStandIn } from "../dist/github-stand-in/index.js";
import { startSimulator } from "../dist/simulator/index.js";
import { runCycle } from "../dist/sync/index.js";
import { addThreats, costsConfig, costsEngine } from "./lib.mjs";

const THREATS = Number(process.argv[2] ?? 10_000);
const REPO = "acme/security-threats";
const BASE = "/orgs/{org}/projectsV2/{project_number}";
const ROUTES = {
  project: `GET ${BASE}`,
  fields: `GET ${BASE}/fields`,
  add: `POST ${BASE}/items`,
  list: `GET ${BASE}/items`,
  getItem: `GET ${BASE}/items/{item_id}`,
  patch: `PATCH ${BASE}/items/{item_id}`,
};

const sim = await startSimulator({ seed: 12, assets: 50, threats: 0, asyncWriteDelayMs: 0 });
const threatIds = addThreats(sim, THREATS);

const gh = await startGitHubStandIn({ tokens: ["ghp_bench"], primaryLimit: { perHour: 10_000_000 } });
gh.projects.create({
  owner: "acme",
  number: 7,
  fields: [
    {
      name: "Severity",
      type: "single_select",
      options: ["Critical", "High", "Medium", "Low", "Informational"],
    },
    { name: "Due", type: "date" },
  ],
});
const base = costsConfig({ simUrl: sim.url, ghUrl: gh.url, repository: REPO });
const withProject = ConfigSchema.parse({
  ...base,
  github: {
    ...base.github,
    project: {
      owner: "acme",
      number: 7,
      fields: { Severity: "{{ threat.severity }}", Due: "{{ sla.due }}" },
    },
  },
});
const { ctx } = costsEngine({ config: withProject, simUrl: sim.url, ghUrl: gh.url });

function projectRequests() {
  const byRoute = gh.counters().byRoute;
  return Object.fromEntries(Object.entries(ROUTES).map(([name, route]) => [name, byRoute[route] ?? 0]));
}

async function measured(label, fn) {
  sim.sim.settle();
  const before = projectRequests();
  const writesBefore = gh.counters().writes;
  const report = await fn();
  const after = projectRequests();
  const requests = Object.fromEntries(Object.keys(ROUTES).map((k) => [k, after[k] - before[k]]));
  return {
    label,
    projectRequests: requests,
    projectTotal: Object.values(requests).reduce((a, b) => a + b, 0),
    featureWrites: report.counters.feature_writes ?? 0,
    issuesCreated: report.counters.issues_created ?? 0,
    githubWrites: gh.counters().writes - writesBefore,
    ok: report.ok,
  };
}

const results = [];
results.push(await measured(`${THREATS} new threats (first cycle)`, () => runCycle(ctx)));
results.push(await measured("echo cycle", () => runCycle(ctx)));
sim.sim.updateThreat(threatIds[0], { severity: "critical" });
results.push(await measured("one threat's severity changes", () => runCycle(ctx)));
results.push(await measured("idle cycle", () => runCycle(ctx)));

const items = gh.projects.items("acme", 7);
const perIssue = new Map();
for (const item of items) perIssue.set(item.issueId, (perIssue.get(item.issueId) ?? 0) + 1);
console.log(
  JSON.stringify(
    {
      bench: "project-costs",
      threats: THREATS,
      node: process.version,
      items: items.length,
      maxItemsPerIssue: Math.max(0, ...perIssue.values()),
      itemsWithSeverity: items.filter((i) => i.values["Severity"] !== undefined).length,
      itemsWithDue: items.filter((i) => i.values["Due"] !== undefined).length,
      firstItemSeverity: items.find((i) => i.issueId === items[0]?.issueId)?.values["Severity"],
      results,
    },
    null,
    2,
  ),
);
await gh.close();
await sim.close();
