import { afterEach, describe, expect, it } from "vitest";
import { REPO, startWorld, type World } from "./world.js";

/**
 * Contract, "The conversation back" → "Related assets", through the built CLI against the
 * simulator and the GitHub stand-in: an issue lists its threat's asset's related assets, a removed
 * neighbour is never listed (spec, related assets rule 3), the dry run shows the list (a walk is a
 * read), each asset is walked once however many of its threats get issues, and an idle cycle walks
 * nothing.
 */

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const RELATED_ROUTE = "GET /v1/assets/{asset_id}/related";
/** Requests to the related endpoint: a walk with items is two (its page, then the empty end). */
const requests = (w: World): number => w.sim.sim.stats().byRoute[RELATED_ROUTE] ?? 0;

/** The cycle summary's count of related walks (`sync --json`, `counters`). */
function walksOf(stdout: string): number {
  const report = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as {
    counters?: Record<string, number>;
  };
  return report.counters?.["related_asset_walks"] ?? 0;
}

describe("related assets in issue bodies (end to end)", () => {
  it("lists the live neighbours, never a removed one; once per asset; the dry run shows it; idle walks nothing", async () => {
    world = await startWorld({ assets: 2, threats: 0 }, "render:\n  related_assets: 10\n");
    const { sim } = world.sim;
    const hub = sim.addAsset({ type: "domain", name: "hub.example.com" });
    const live = sim.addAsset({ type: "ip", name: "db @ops #42", related_to: [hub.id] });
    const removed = sim.addAsset({ type: "domain", name: "old.example.com", related_to: [hub.id] });
    sim.removeAsset(removed.id);
    const lonely = sim.addAsset({ type: "domain", name: "lonely.example.com" });
    const threats = [
      sim.addThreat({ asset_id: hub.id, severity: "high", status: "unsolved", name: "First on hub" }),
      sim.addThreat({ asset_id: hub.id, severity: "high", status: "unsolved", name: "Second on hub" }),
      sim.addThreat({ asset_id: lonely.id, severity: "high", status: "unsolved", name: "Alone" }),
    ];

    const dry = await world.run(["sync", "-c", world.configPath, "--dry-run", "--json"]);
    expect(dry.code).toBe(0);
    const lines = dry.stdout
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const creates = lines.filter((l) => l["action"] === "create");
    expect(creates).toHaveLength(3);
    const first = creates.find((l) => l["threat_id"] === threats[0]?.id);
    expect(first?.["related_assets"]).toEqual([{ id: live.id, name: "db @ops #42", type: "ip" }]);
    expect(first?.["related_more"]).toBe(0);
    expect(creates.find((l) => l["threat_id"] === threats[2]?.id)?.["related_assets"]).toEqual([]);
    expect(world.gh.issues(REPO)).toHaveLength(0);
    // The dry run read each asset once: hub (its page, then the empty end) and lonely (one page).
    expect(requests(world)).toBe(3);

    const sync = await world.cli(["sync", "-c", world.configPath, "--json"]);
    expect(sync.code, sync.stderr).toBe(0);
    expect(walksOf(sync.stdout)).toBe(2);
    expect(requests(world)).toBe(6);
    const issues = world.gh.issues(REPO);
    expect(issues).toHaveLength(3);
    for (const threat of threats.slice(0, 2)) {
      const body = issues.find((i) => i.title.includes(threat.name ?? "?"))?.body ?? "";
      expect(body).toContain("### Related assets");
      // Inert: the name's mention and cross-reference are broken.
      expect(body).toContain(`- db @\u200Bops #\u200B42 (ip), ${live.id}`);
      expect(body).not.toContain(removed.id);
      expect(body).not.toContain("old.example.com");
    }
    expect(issues.find((i) => i.title.includes("Alone"))?.body).toContain("_No related assets._");

    // The links' echoes and an idle cycle write nothing and walk nothing.
    const writes = world.gh.counters().writes;
    for (let i = 0; i < 2; i += 1) {
      const idle = await world.run(["sync", "-c", world.configPath, "--json"]);
      expect(idle.code).toBe(0);
      expect(walksOf(idle.stdout)).toBe(0);
    }
    expect(world.gh.counters().writes).toBe(writes);
    expect(requests(world)).toBe(6);
  });
});
