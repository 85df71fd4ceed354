import { afterEach, describe, expect, it } from "vitest";
import { threatOf } from "./people-helpers.js";
import { REPO, startWorld, type World } from "./world.js";

/**
 * Contract, `routes` and "Conventions": a route matches by the asset's name (globs) and by what
 * the asset says of itself (`where`); the issue it places says so in one line of its body; its
 * assignees and labels are set when the issue is created, and a person's later change of them
 * stands. Built CLI against the simulator and the GitHub stand-in.
 */

const PAYMENTS = "acme/payments";
const ROUTES = `routes:
  - match: { severity: [critical], asset_name: ["nothing-matches-*"] }
    repository: acme/never
  - match:
      asset_name: ["*.payments.acme.test", "pay-db-??"]
      where:
        asset.business_value: [critical, high]
    repository: ${PAYMENTS}
    labels: [payments]
    assignees: [payments-oncall]
`;
// GitHub shows it as "Routed here by routes[1]: asset_name *.payments.acme.test, asset.business_value critical".
const LINE =
  "Routed here by routes\\[1\\]: asset\\_name \\*.payments.acme.test, asset.business\\_value critical";

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function sync(w: World): Promise<void> {
  const result = await w.run(["sync", "-c", w.configPath]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
}

describe("routes by asset (end to end)", () => {
  it("an issue routed by asset name and asset field lands in the route's repository with the body's line; others say nothing of routes", async () => {
    world = await startWorld({ assets: 3, threats: 4 }, ROUTES);
    const w = world;
    const api = w.sim.sim.addAsset({
      type: "domain",
      name: "API.Payments.acme.test",
      business_value: "critical",
    });
    const low = w.sim.sim.addAsset({ type: "domain", name: "www.payments.acme.test", business_value: "low" });
    const routed = w.sim.sim.addThreat({
      asset_id: api.id,
      severity: "high",
      module: "vulnerability",
      name: "TLS 1.0 on the payments API",
    });
    const unrouted = w.sim.sim.addThreat({
      asset_id: low.id,
      severity: "high",
      module: "vulnerability",
      name: "TLS 1.0 on the shop",
    });
    await sync(w);

    const there = w.gh.issues(PAYMENTS);
    expect(there.map((i) => threatOf(i.body))).toEqual([routed.id]);
    const issue = there[0]!;
    expect(issue.body).toContain(LINE);
    expect(issue.body?.match(/Routed here by/g)).toHaveLength(1);
    expect(issue.labels).toContain("payments");
    expect(issue.assignees).toEqual(["payments-oncall"]);

    const home = w.gh.issues(REPO);
    const other = home.find((i) => threatOf(i.body) === unrouted.id);
    expect(other).toBeDefined();
    expect(other?.labels).not.toContain("payments");
    expect(other?.assignees).toEqual([]);
    // No route placed any issue of the default repository: none says anything of routes.
    expect(home.filter((i) => i.body?.includes("Routed here"))).toEqual([]);
    expect(w.gh.issues("acme/never")).toEqual([]);
  });

  it("a person removes the route's label and reassigns; the threat changes; the person's change stands", async () => {
    world = await startWorld({ assets: 3, threats: 4 }, ROUTES);
    const w = world;
    const db = w.sim.sim.addAsset({ type: "domain", name: "pay-db-07", business_value: "high" });
    const threat = w.sim.sim.addThreat({
      asset_id: db.id,
      severity: "medium",
      module: "vulnerability",
      name: "Weak cipher",
    });
    await sync(w);
    const [created] = w.gh.issues(PAYMENTS);
    expect(created?.labels.sort()).toEqual([
      "module:vulnerability",
      "payments",
      "severity:medium",
      "threatbridge",
    ]);
    expect(created?.body).toContain(
      "Routed here by routes\\[1\\]: asset\\_name pay-db-??, asset.business\\_value high",
    );

    w.gh.person.relabel(
      PAYMENTS,
      created!.number,
      [...created!.labels.filter((l) => l !== "payments"), "triaged"],
      "alice",
    );
    w.gh.person.reassign(PAYMENTS, created!.number, ["bob"], "alice");
    w.sim.sim.updateThreat(threat.id, { severity: "critical", name: "Weak cipher, now exploited" });
    await sync(w);

    const after = w.gh.issues(PAYMENTS).find((i) => i.number === created!.number)!;
    // The connector updated the issue (title, severity label) ...
    expect(after.title).toContain("Weak cipher, now exploited");
    expect(after.labels).toContain("severity:critical");
    expect(after.labels).not.toContain("severity:medium");
    // ... and left the person's changes as they were: no route label back, their assignee kept.
    expect(after.labels).not.toContain("payments");
    expect(after.labels).toContain("triaged");
    expect(after.assignees).toEqual(["bob"]);
    expect(after.body).toContain("Routed here by routes\\[1\\]");
  });

  it("sync --dry-run names the rule that places a create; after the config's routes are reordered, the body still names the rule that placed the issue", async () => {
    world = await startWorld({ assets: 3, threats: 0 }, ROUTES);
    const w = world;
    const api = w.sim.sim.addAsset({
      type: "domain",
      name: "api.payments.acme.test",
      business_value: "critical",
    });
    const threat = w.sim.sim.addThreat({ asset_id: api.id, severity: "high", name: "TLS 1.0" });
    const placing = "routes[1]: asset_name *.payments.acme.test, asset.business_value critical";
    const json = await w.run(["sync", "-c", w.configPath, "--dry-run", "--json"]);
    expect(json.code, json.stderr).toBe(0);
    const creates = json.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l["action"] === "create");
    expect(creates).toEqual([
      expect.objectContaining({ threat_id: threat.id, repository: PAYMENTS, route: placing }),
    ]);
    const text = await w.run(["sync", "-c", w.configPath, "--dry-run"]);
    expect(text.stdout).toContain(`(${placing})`);
    await sync(w);
    expect(w.gh.issues(PAYMENTS)[0]?.body).toContain(LINE);

    // A new first rule that matches the same threat: the issue stays where it is and says who placed it.
    await w.writeConfig(`routes:
  - match: { severity: [high] }
    repository: acme/urgent
${ROUTES.replace("routes:\n", "")}`);
    w.sim.sim.updateThreat(threat.id, { name: "TLS 1.0, now exploited" });
    await sync(w);
    const after = w.gh.issues(PAYMENTS)[0];
    expect(after?.title).toContain("now exploited");
    expect(after?.body).toContain(LINE);
    expect(after?.body?.match(/Routed here by/g)).toHaveLength(1);
    expect(w.gh.issues("acme/urgent")).toEqual([]);
  });
});
