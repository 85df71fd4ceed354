import { clip, DemoError, plural, type Say } from "./narrate.js";
import type { DemoWorld } from "./setup.js";

/**
 * The workflow demo's route by asset (contract, `routes`): an asset named like the payments
 * team's hosts, and critical to the business, gets a threat; its issue lands in the team's
 * repository, assigned and labelled, with the body's line saying why. A person then removes the
 * label and reassigns the issue, the threat changes, and the person's change stands.
 */

export const ROUTED_REPO = "acme/payments";
const ROUTE_LABEL = "payments";
const ROUTE_ASSIGNEE = "payments-oncall";

/** The demo's route (the config's `routes`): by asset name and by what the asset says of itself. */
export const DEMO_ROUTES = [
  {
    match: { asset_name: ["*.payments.acme.test"], where: { "asset.business_value": ["critical"] } },
    repository: ROUTED_REPO,
    labels: [ROUTE_LABEL],
    assignees: [ROUTE_ASSIGNEE],
  },
];

/** What the step needs of the demo: its world, its narrator, and one cycle (answering its GitHub writes). */
export interface RouteStepRun {
  world: DemoWorld;
  say: Say;
  cycle(what: string): Promise<number>;
}

export async function routeByAsset(run: RouteStepRun, step: number): Promise<void> {
  const { world, say } = run;
  const asset = world.sim.sim.addAsset({
    type: "domain",
    name: "api.payments.acme.test",
    business_value: "critical",
  });
  const threat = world.sim.sim.addThreat({
    asset_id: asset.id,
    severity: "high",
    module: "vulnerability",
    name: "TLS 1.0 accepted on the payments API",
  });
  const writes = await run.cycle("route");
  const issue = world.gh.issues(ROUTED_REPO).find((i) => i.body?.includes(threat.id));
  if (!issue) throw new DemoError(`the threat on ${asset.name} got no issue in ${ROUTED_REPO}`);
  const line = (issue.body ?? "").split("\n").find((l) => l.startsWith("Routed here by")) ?? "";
  say(
    `${step}. A new asset, ${asset.name} (business value critical), and a threat on it (${plural(writes, "GitHub write")}):`,
  );
  say(
    `   #${issue.number} lands in ${ROUTED_REPO}, assigned to ${issue.assignees.join(", ")}, labelled "${ROUTE_LABEL}"; its body says why:`,
  );
  // The body's Markdown escapes shown as GitHub shows them.
  say(`     "${clip(line.replace(/\\(.)/g, "$1"), 100)}"`);
  world.gh.person.relabel(
    ROUTED_REPO,
    issue.number,
    issue.labels.filter((l) => l !== ROUTE_LABEL),
    "dave",
  );
  world.gh.person.reassign(ROUTED_REPO, issue.number, ["dave"], "dave");
  world.sim.sim.updateThreat(threat.id, { severity: "critical" });
  await run.cycle("route update");
  const after = world.gh.issues(ROUTED_REPO).find((i) => i.number === issue.number);
  const kept =
    after !== undefined && !after.labels.includes(ROUTE_LABEL) && after.assignees.join() === "dave";
  say(
    `   A person (dave) removes "${ROUTE_LABEL}" and takes the issue; the threat turns critical. Next cycle:`,
  );
  say(
    `   #${issue.number} shows ${after?.labels.find((l) => l.startsWith("severity:")) ?? "no severity"}, ` +
      (kept
        ? `still without "${ROUTE_LABEL}", still assigned to dave: the person's change stands.`
        : "but the person's change was undone."),
  );
  if (!kept) throw new DemoError(`the route's label or assignee came back on #${issue.number}`);
}
