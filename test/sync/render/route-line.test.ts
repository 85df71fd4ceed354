import { describe, expect, it } from "vitest";
import { createRenderer } from "../../../src/sync/render/renderer.js";
import { routeLine, type Route } from "../../../src/sync/render/index.js";
import { makeConfig, REPO } from "../harness.js";
import { ASSET, threat } from "./fixtures.js";

/**
 * Contract, "Conventions": an issue that a route placed says so in its body, in one line naming
 * the rule (`routes[i]`, counted from 0) and what matched, rendered inertly; an issue no route
 * matched says nothing of it.
 */

const PLACED: Route = {
  repo: "acme/payments",
  labels: ["payments"],
  assignees: ["payments-oncall"],
  placed: {
    index: 1,
    matched: [
      { key: "asset_name", value: "*.payments.acme.test" },
      { key: "asset.environment", value: "prod" },
    ],
  },
};
const UNROUTED: Route = { repo: REPO, labels: [], assignees: [] };

describe("the route's line in the issue body", () => {
  it("names the rule, counted from 0, and what of it matched", () => {
    expect(routeLine(1, PLACED.placed?.matched ?? [])).toBe(
      "Routed here by routes[1]: asset_name *.payments.acme.test, asset.environment prod",
    );
    expect(routeLine(0, [])).toBe("Routed here by routes[0]");
  });

  it("the default body shows it once, after the summary, with the glob's * shown and not read as Markdown", () => {
    const body = createRenderer(makeConfig()).render(threat(), ASSET, PLACED).issue.body;
    const lines = body.split("\n").filter((l) => l.startsWith("Routed here by"));
    // Markdown escapes: GitHub shows "Routed here by routes[1]: asset_name *.payments.acme.test, …".
    expect(lines).toEqual([
      "Routed here by routes\\[1\\]: asset\\_name \\*.payments.acme.test, asset.environment prod",
    ]);
    expect(body.indexOf("Routed here by")).toBeGreaterThan(body.indexOf("| Threat ID |"));
    expect(body.indexOf("Routed here by")).toBeLessThan(body.indexOf("### Description"));
  });

  it("an issue no route matched says nothing of routes", () => {
    const body = createRenderer(makeConfig()).render(threat(), ASSET, UNROUTED).issue.body;
    expect(body).not.toContain("Routed here");
    expect(body).not.toContain("routes[");
  });

  it("is inert: a value cannot mention anyone, reference an issue or inject HTML", () => {
    const route: Route = {
      ...PLACED,
      placed: { index: 0, matched: [{ key: "threat.owner", value: "@alice #12 <b>x</b>" }] },
    };
    const body = createRenderer(makeConfig()).render(threat(), ASSET, route).issue.body;
    const line = body.split("\n").find((l) => l.startsWith("Routed here by")) ?? "";
    expect(line).not.toMatch(/@\w|#\d|<b>/);
    expect(line).toContain("@\u200Balice");
  });

  it("templates see it as `route` (rule and line), and place it where they like", () => {
    const renderer = createRenderer(
      makeConfig({
        templates: { body: "{% if route %}[rule {{ route.rule }}] {{ route.line }}{% endif %}\nbody" },
      }),
    );
    const body = renderer.render(threat(), ASSET, PLACED).issue.body;
    expect(
      body.startsWith("[rule 1] Routed here by routes\\[1\\]: asset\\_name \\*.payments.acme.test"),
    ).toBe(true);
    expect(body.match(/Routed here by/g)).toHaveLength(1);
    expect(renderer.render(threat(), ASSET, UNROUTED).issue.body).not.toContain("Routed here");
  });

  it("a body template that does not name `route` still carries the line, before the marker", () => {
    const renderer = createRenderer(makeConfig({ templates: { body: "Threat {{ threat.title }}" } }));
    const body = renderer.render(threat(), ASSET, PLACED).issue.body;
    expect(body).toMatch(
      /^Threat Outdated TLS configuration\n\nRouted here by routes\\\[1\\\]: .*\n\n<!-- threatbridge:threat=/,
    );
    expect(renderer.render(threat(), ASSET, UNROUTED).issue.body).not.toContain("Routed here");
  });
});

describe("what a route gives, and what an update brings back", () => {
  const renderer = createRenderer(makeConfig());

  it("the rendered labels are the connector's own: the route's labels are the new issue's only", () => {
    expect(renderer.render(threat(), ASSET, PLACED).issue.labels).toEqual([
      "module:vulnerability",
      "severity:high",
      "threatbridge",
    ]);
  });

  it("the hash follows the route's line, not its labels or assignees (no update for them)", () => {
    const hash = renderer.render(threat(), ASSET, PLACED).hash;
    expect(renderer.render(threat(), ASSET, { ...PLACED, labels: [], assignees: [] }).hash).toBe(hash);
    expect(renderer.render(threat(), ASSET, UNROUTED).hash).not.toBe(hash);
  });
});
