import { afterEach, describe, expect, it } from "vitest";
import { ConfigSchema } from "../../src/config/index.js";
import { createGitHub } from "../../src/github/index.js";
import { startGitHubStandIn } from "../../src/github-stand-in/index.js";
import { silentLogger } from "../../src/observability/index.js";
import { createPlatformClient } from "../../src/platform/index.js";
import { startSimulator } from "../../src/simulator/index.js";
import { emptyState } from "../../src/sync/schema.js";
import { createContext, runCycle, type SyncContext } from "../../src/sync/index.js";

/**
 * Requests per unit of work over HTTP against the simulator and the GitHub stand-in, counted per
 * route by both servers (bench/sync-costs.mjs measures the same batch). Counts,
 * never timings.
 */

const REPO = "acme/security-threats";
const stops: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function world() {
  const sim = await startSimulator({ seed: 5, assets: 40, threats: 180, asyncWriteDelayMs: 0 });
  stops.push(() => sim.close());
  const gh = await startGitHubStandIn({ tokens: ["ghp_budget"] });
  stops.push(() => gh.close());
  const config = ConfigSchema.parse({
    platform: {
      base_url: sim.url,
      token_url: `${sim.url}/oauth/token`,
      client_id: "threatbridge",
      client_secret: "threatbridge-secret",
    },
    github: {
      api_url: gh.url,
      token: "ghp_budget",
      repository: REPO,
      write_budget: { per_minute: 0, per_hour: 0, min_interval_ms: 0 },
    },
  });
  const platform = createPlatformClient({
    baseUrl: sim.url,
    tokenUrl: `${sim.url}/oauth/token`,
    clientId: "threatbridge",
    clientSecret: "threatbridge-secret",
    tokenAuth: "client_secret_basic",
  });
  stops.push(() => platform.close());
  const github = createGitHub({
    apiUrl: gh.url,
    auth: { token: "ghp_budget" },
    writeBudget: { perMinute: 0, perHour: 0, minIntervalMs: 0 },
    managedLabel: "threatbridge",
  });
  const ctx = createContext(
    { config, platform, github, logger: silentLogger, clock: { now: () => Date.now() }, persist: null },
    emptyState(),
  );
  /** One cycle and what it cost, per route on both sides. */
  async function cycle(c: SyncContext = ctx) {
    sim.sim.settle();
    const ghBefore = gh.counters();
    const simBefore = sim.sim.stats().byRoute;
    const report = await runCycle(c);
    expect(report.ok).toBe(true);
    const ghAfter = gh.counters();
    const routes = (after: Record<string, number>, before: Record<string, number>) =>
      Object.fromEntries(
        Object.entries(after)
          .map(([k, v]) => [k, v - (before[k] ?? 0)] as const)
          .filter(([, v]) => v > 0),
      );
    const github = routes(ghAfter.byRoute, ghBefore.byRoute);
    return {
      writes: ghAfter.writes - ghBefore.writes,
      reads: Object.entries(github)
        .filter(([k]) => k.startsWith("GET "))
        .reduce((n, [, v]) => n + v, 0),
      github,
      platform: routes(sim.sim.stats().byRoute, simBefore),
    };
  }
  const withIssue = (state: "open" | "closed") =>
    [...ctx.state.threats.entries()]
      .filter(([, r]) => r.issue?.state === state && !r.gone && r.status !== "pending")
      .map(([id]) => id);
  return { sim, gh, ctx, cycle, withIssue };
}

describe("GitHub requests at the minimum", () => {
  it("writes per new threat 1, per status change 1, per echo 0; a verdict's echo costs no write", async () => {
    const w = await world();
    const backfill = await w.cycle();
    const created = [...w.ctx.state.threats.values()].filter((r) => r.issue).length;
    expect(created).toBeGreaterThan(50);
    expect(backfill.writes).toBe(created);
    expect((await w.cycle()).writes).toBe(0); // the echo of the connector's own links
    const closes = w.withIssue("open").slice(0, 10);
    closes.forEach((id) => w.sim.sim.updateThreat(id, { status: "solved" }));
    expect((await w.cycle()).writes).toBe(closes.length);
    expect((await w.cycle()).writes).toBe(0);
    // People's closes become verdicts; the platform's answer (often `pending`) costs no GitHub write.
    const people = w.withIssue("open").slice(0, 10);
    people.forEach((id) =>
      w.gh.person.close(REPO, w.ctx.state.threats.get(id)!.issue!.number, {
        reason: "completed",
        login: "alice",
      }),
    );
    const verdicts = await w.cycle();
    expect(verdicts.platform["PATCH /v1/threats/{threat_id}"]).toBe(people.length);
    expect(verdicts.writes).toBe(0);
    expect((await w.cycle()).writes).toBe(0);
  });

  it("the mixed batch costs the minimum of 70 GitHub writes and at most 30 reads, no platform GET before a verdict, no GET before a content PATCH or a reopen", async () => {
    const w = await world();
    await w.cycle();
    await w.cycle();
    // Ten issues the platform closed, to be reopened in the batch.
    const toReopen = w.withIssue("open").slice(0, 10);
    toReopen.forEach((id) => w.sim.sim.updateThreat(id, { status: "false_positive" }));
    await w.cycle();
    const open = w.withIssue("open");
    const [toClose, toEdit, byPeople] = [open.slice(10, 30), open.slice(30, 40), open.slice(40, 60)];
    expect(byPeople).toHaveLength(20);
    for (let i = 0; i < 20; i += 1) w.sim.sim.addThreat({ status: "unsolved", severity: "high" });
    toClose.forEach((id) => w.sim.sim.updateThreat(id, { status: "solved" }));
    toReopen.forEach((id) => w.sim.sim.updateThreat(id, { status: "unsolved" }));
    toEdit.forEach((id, i) => w.sim.sim.updateThreat(id, { name: `Edited ${i}` }));
    byPeople.forEach((id) =>
      w.gh.person.close(REPO, w.ctx.state.threats.get(id)!.issue!.number, {
        reason: "completed",
        login: "bob",
      }),
    );

    const batch = await w.cycle();
    const echo = await w.cycle();
    // 20 creates + 20 closes + 10 × (reopen + its comment) + 10 edits; people's closes cost none.
    expect(batch.writes).toBe(70);
    expect(echo.writes).toBe(0);
    expect(batch.github["PATCH /repos/{owner}/{repo}/issues/{issue_number}"]).toBe(40);
    expect(batch.github["POST /repos/{owner}/{repo}/issues/{issue_number}/labels"]).toBeUndefined();
    // Reads (the target: at most 30 for the batch and its echo). A GET of an issue goes only
    // before a close (the person wins), never before a reopen or an edit; who made the 20 people's
    // closes is one read of the repository's event list, not one per issue.
    expect(batch.github["GET /repos/{owner}/{repo}/issues/{issue_number}"] ?? 0).toBeLessThanOrEqual(20);
    expect(batch.github["GET /repos/{owner}/{repo}/issues/events"]).toBe(1);
    expect(batch.github["GET /repos/{owner}/{repo}/issues/{issue_number}/events"]).toBeUndefined();
    expect(batch.reads + echo.reads).toBeLessThanOrEqual(30);
    // The verdict's PATCH answers with the threat: no platform GET before it.
    expect(batch.platform["GET /v1/threats/{threat_id}"]).toBeUndefined();
    expect(batch.platform["PATCH /v1/threats/{threat_id}"]).toBe(20);
  });

  it("a severity change moves the connector's labels through the label endpoints and keeps people's labels", async () => {
    const w = await world();
    await w.cycle();
    const [id] = w.withIssue("open");
    const number = w.ctx.state.threats.get(id!)!.issue!.number;
    const before = w.gh.issues(REPO).find((i) => i.number === number)!;
    const severity = before.labels.find((l) => l.startsWith("severity:"));
    const next = severity === "severity:critical" ? "low" : "critical";
    w.gh.person.relabel(REPO, number, [...before.labels, "triaged"], "alice");
    w.sim.sim.updateThreat(id!, { severity: next });
    const costs = await w.cycle();
    const labels = w.gh.issues(REPO).find((i) => i.number === number)!.labels;
    expect(labels).toContain(`severity:${next}`);
    expect(labels).not.toContain(severity);
    expect(labels).toContain("triaged");
    expect(costs.github["POST /repos/{owner}/{repo}/issues/{issue_number}/labels"]).toBe(1);
    expect(costs.github["DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}"]).toBe(1);
  });
});
