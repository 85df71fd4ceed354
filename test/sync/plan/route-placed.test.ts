import { describe, expect, it } from "vitest";
import type { ThreatRecord } from "../../../src/sync/schema.js";
import { placementOf, shownRoute, withPlacement } from "../../../src/sync/plan/route-placed.js";
import type { Route } from "../../../src/sync/render/index.js";
import { ASSET, Harness, makeConfig, threatId } from "../harness.js";

/**
 * Contract, "Conventions": "An issue that a route placed says so in its body, in one line naming the
 * rule (`routes[i]`, counted from 0 as in the config) and what matched; an issue no route matched
 * says nothing of it." The line names the rule that placed the issue when it was created, whatever
 * the config's routes or the asset become later.
 */

const OTHER_ASSET = "00000000-0000-4000-8000-00000000a002";
const BY_NAME = { match: { asset_name: ["*.example.com"] }, repository: "acme/web" };
const BY_SEVERITY = { match: { severity: ["high"] }, repository: "acme/urgent" };
const line = (body: string | undefined): string[] =>
  (body ?? "").split("\n").filter((l) => l.startsWith("Routed here by"));

const NOW: Route = {
  repo: "acme/urgent",
  labels: [],
  assignees: [],
  placed: { index: 0, matched: [{ key: "severity", value: "high" }] },
};
const record: ThreatRecord = {
  status: "unsolved",
  severity: 3,
  assetId: "a",
  updatedAt: "2026-01-01T00:00:00Z",
  issue: {
    repo: "acme/web",
    number: 7,
    url: "https://github.com/acme/web/issues/7",
    state: "open",
    hash: "h",
  },
};

describe("the rule that placed an issue, kept on its record", () => {
  it("round-trips the rule and what matched; `-` for an issue no route placed; an absent or unreadable slice is not known", () => {
    const placed = { index: 1, matched: [{ key: "asset_name", value: "*.example.com" }] };
    expect(placementOf(withPlacement(record, placed))).toEqual(placed);
    expect(placementOf(withPlacement(record, undefined))).toBeNull();
    expect(placementOf(record)).toBeUndefined();
    expect(placementOf({ ...record, slices: { routes: "[1," } })).toBeUndefined();
  });

  it("an existing issue shows the kept rule (or none) instead of the rule matching now; one with nothing kept shows the rule matching now", () => {
    const placed = { index: 1, matched: [{ key: "asset_name", value: "*.example.com" }] };
    expect(shownRoute(withPlacement(record, placed), NOW).placed).toEqual(placed);
    expect(shownRoute(withPlacement(record, undefined), NOW)).not.toHaveProperty("placed");
    expect(shownRoute(record, NOW)).toEqual(NOW);
    // Where the issue goes (a new one) is the rule matching now's: only the line is the kept one's.
    expect(shownRoute(withPlacement(record, placed), NOW).repo).toBe("acme/urgent");
    const { issue: _none, ...noIssue } = record;
    expect(shownRoute(withPlacement(noIssue, placed), NOW)).toEqual(NOW);
  });
});

describe("the route's line after the config's routes or the asset change (through the engine)", () => {
  it("routes reordered and the asset renamed after creation: the body still names the rule that placed the issue; an issue no route placed still says nothing", async () => {
    const h = new Harness(makeConfig({ routes: [BY_NAME] }));
    const T1 = threatId(1);
    const T2 = threatId(2);
    h.platform.putAsset(OTHER_ASSET, { name: "db.internal", type: "host" });
    h.platform.put({ id: T1, name: "On the shop" });
    h.platform.put({ id: T2, name: "On the database", asset_id: OTHER_ASSET });
    await h.settle();
    const placedBody = () => h.issues("acme/web").find((i) => i.threatId === T1)?.body;
    const unplacedBody = () => h.issues().find((i) => i.threatId === T2)?.body;
    expect(line(placedBody())).toEqual(["Routed here by routes\\[0\\]: asset\\_name \\*.example.com"]);
    expect(line(unplacedBody())).toEqual([]);

    // A rule now first that matches both, the asset renamed out of the old glob, and both threats changed.
    h.config = makeConfig({ routes: [BY_SEVERITY, BY_NAME] });
    h.restart();
    h.platform.putAsset(ASSET, { name: "shop.example.org", type: "domain" });
    h.platform.put({ id: T1, name: "On the shop, now worse" });
    h.platform.put({ id: T2, name: "On the database, now worse" });
    await h.settle();
    expect(h.issues("acme/web").find((i) => i.threatId === T1)?.title).toContain("now worse");
    expect(h.issues().find((i) => i.threatId === T2)?.title).toContain("now worse");
    expect(line(placedBody())).toEqual(["Routed here by routes\\[0\\]: asset\\_name \\*.example.com"]);
    expect(line(unplacedBody())).toEqual([]);
    // A threat first seen now is placed by the rule matching now.
    const T3 = threatId(3);
    h.platform.put({ id: T3, name: "New on the shop" });
    await h.settle();
    expect(line(h.issues("acme/urgent").find((i) => i.threatId === T3)?.body)).toEqual([
      "Routed here by routes\\[0\\]: severity high",
    ]);
  });

  it("a crash at any GitHub call of the create (before or after it lands): the issue, made once, keeps naming its rule after a reorder", async () => {
    for (const after of [false, true]) {
      for (let call = 1; call <= 4; call += 1) {
        const label = `call ${call}, after ${after}`;
        const h = new Harness(makeConfig({ routes: [BY_NAME] }));
        const T1 = threatId(1);
        h.platform.put({ id: T1, name: "On the shop" });
        h.crashAt("github", call, after);
        await h.cycle().catch(() => undefined);
        h.restart();
        await h.settle();
        h.config = makeConfig({ routes: [BY_SEVERITY, BY_NAME] });
        h.restart();
        h.platform.put({ id: T1, name: "On the shop, changed" });
        await h.settle();
        const issues = h.issues("acme/web").filter((i) => i.threatId === T1);
        expect(issues, label).toHaveLength(1);
        expect(issues[0]?.title, label).toContain("changed");
        expect(line(issues[0]?.body), label).toEqual([
          "Routed here by routes\\[0\\]: asset\\_name \\*.example.com",
        ]);
      }
    }
  });
});
