import { afterEach, describe, expect, it } from "vitest";
import { firstIssue, MARKER, status, sync, threatOf } from "./people-helpers.js";
import { REPO, startWorld, type World } from "./world.js";

/**
 * Nothing a person does on GitHub, and nothing either side refuses, reverses a verdict or stops the
 * connector. The built CLI's commands, run in this process (`World.run`), against the simulator and
 * the GitHub stand-in on 127.0.0.1.
 */

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("the conflict rule: a person's change wins", () => {
  it("a person's close that lands between queued content updates becomes a verdict and is never reopened", async () => {
    world = await startWorld({ threats: 20 });
    expect(await sync(world)).toBe(0);
    const w = world;
    const issues = w.gh.issues(REPO);
    expect(issues.length).toBeGreaterThan(3);
    // Re-rate every threat: each issue's content must be updated.
    for (const issue of issues)
      w.sim.sim.updateThreat(threatOf(issue.body), { name: `Renamed ${issue.number}` });
    // After the connector's first write, a person closes every other issue.
    w.gh.faults.afterWrites(1, () => {
      for (const issue of w.gh.issues(REPO)) {
        // Threats the platform reports `unsolved`: a close of theirs must become a verdict.
        const unsolved = w.sim.sim.getThreat(threatOf(issue.body))?.status === "unsolved";
        if (unsolved && issue.state === "open" && !issue.title.includes("Renamed"))
          w.gh.person.close(REPO, issue.number, { reason: "completed", login: "alice" });
      }
    });
    expect(await sync(w)).toBe(0);
    w.sim.sim.settle();
    const closedByAlice = w.gh.issues(REPO).filter((i) => i.closedBy === "alice");
    expect(closedByAlice.length).toBeGreaterThan(1);
    for (const issue of closedByAlice) {
      expect(issue.state).toBe("closed");
      const reopens = w.gh
        .comments(REPO, issue.number)
        .filter((c) => c.body.includes("Reopened by threatbridge"));
      expect(reopens).toHaveLength(0);
      const threat = w.sim.sim.getThreat(threatOf(issue.body));
      expect(["solved", "pending"]).toContain(threat?.status);
      expect(threat?.status_note).toContain("alice");
    }
    // And a later cycle leaves them so.
    expect(await sync(w)).toBe(0);
    for (const issue of closedByAlice) {
      expect(w.gh.issues(REPO).find((i) => i.number === issue.number)?.state).toBe("closed");
    }
  });

  it("the connector never closes on its own stale belief: a person's close between intake and the write stands", async () => {
    world = await startWorld({ threats: 8 });
    expect(await sync(world)).toBe(0);
    const w = world;
    const [y, x] = w.gh.issues(REPO);
    if (!x || !y) throw new Error("two issues are needed");
    // Both threats are solved on the platform: both issues are due to be closed, Y's first.
    w.sim.sim.updateThreat(threatOf(y.body), { status: "solved", severity: "critical" });
    w.sim.sim.updateThreat(threatOf(x.body), { status: "solved", severity: "low" });
    // Right after the connector closed Y, a person closes X as not planned.
    w.gh.faults.afterWrites(1, () =>
      w.gh.person.close(REPO, x.number, { reason: "not_planned", login: "alice" }),
    );
    expect(await sync(w)).toBe(0);
    expect(w.gh.issues(REPO).find((i) => i.number === y.number)?.state).toBe("closed");
    const after = w.gh.issues(REPO).find((i) => i.number === x.number);
    expect(after).toMatchObject({ state: "closed", stateReason: "not_planned", closedBy: "alice" });
    const byBot = w.gh.events(REPO, x.number).filter((e) => e.actor !== "alice");
    expect(byBot.filter((e) => e.event === "closed" || e.event === "reopened")).toHaveLength(0);
  });
});

describe("permanent refusals never stop the connector", () => {
  it("a reopen whose comment a locked conversation refuses is recorded as refused and later cycles go on", async () => {
    world = await startWorld({ threats: 8 });
    expect(await sync(world)).toBe(0);
    const { number, threatId } = firstIssue(world);
    world.sim.sim.updateThreat(threatId, { status: "false_positive" });
    expect(await sync(world)).toBe(0);
    expect(world.gh.issues(REPO).find((i) => i.number === number)?.state).toBe("closed");
    world.gh.person.lock(REPO, number, "alice");
    world.sim.sim.updateThreat(threatId, { status: "unsolved" });
    expect(await sync(world)).toBe(0);
    const refused = (await status(world)).refused ?? [];
    expect(refused.map((r) => r.threat_id)).toContain(threatId);
    expect(refused.find((r) => r.threat_id === threatId)?.reason).toMatch(/403|locked/);
    // A new critical threat still gets its issue: nothing is stuck on the refused step.
    const fresh = world.sim.sim.addThreat({ severity: "critical", status: "unsolved" });
    expect(await sync(world)).toBe(0);
    expect(world.gh.issues(REPO).some((i) => threatOf(i.body) === fresh.id)).toBe(true);
    const comments =
      world.gh.counters().byRoute["POST /repos/{owner}/{repo}/issues/{issue_number}/comments"] ?? 0;
    expect(await sync(world)).toBe(0);
    // Never retried blindly.
    expect(
      world.gh.counters().byRoute["POST /repos/{owner}/{repo}/issues/{issue_number}/comments"] ?? 0,
    ).toBe(comments);
  });

  it("intent recovery never throws for the whole cycle: a comment left unfinished, then refused, is resolved", async () => {
    world = await startWorld({ threats: 8 });
    expect(await sync(world)).toBe(0);
    const { number, threatId } = firstIssue(world);
    world.sim.sim.updateThreat(threatId, { status: "false_positive" });
    expect(await sync(world)).toBe(0);
    world.sim.sim.updateThreat(threatId, { status: "unsolved" });
    // The reopen lands; its comment fails (502) and stays an unfinished intent.
    world.gh.faults.failNext("POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments", 502);
    await sync(world);
    expect(world.gh.issues(REPO).find((i) => i.number === number)?.state).toBe("open");
    expect((await world.run(["status", "-c", world.configPath, "--json"])).stdout).not.toContain(
      '"intents":[]',
    );
    // Before the next cycle a person locks the conversation: recovery's comment is refused for good.
    world.gh.person.lock(REPO, number, "alice");
    const fresh = world.sim.sim.addThreat({ severity: "critical", status: "unsolved" });
    expect(await sync(world)).toBe(0);
    expect(world.gh.issues(REPO).some((i) => threatOf(i.body) === fresh.id)).toBe(true);
    const report = await status(world);
    expect(report.refused?.find((r) => r.threat_id === threatId)?.reason).toMatch(/locked/);
    expect((await world.run(["status", "-c", world.configPath, "--json"])).stdout).toContain('"intents":[]');
  });

  it("an archived repository refuses every write: each step is recorded once, and verdicts still flow", async () => {
    world = await startWorld({ threats: 8 });
    expect(await sync(world)).toBe(0);
    const { number, threatId } = firstIssue(world);
    world.gh.person.close(REPO, number, { reason: "not_planned", login: "alice" });
    world.gh.person.archive(REPO);
    const fresh = world.sim.sim.addThreat({ severity: "critical", status: "unsolved" });
    expect(await sync(world)).toBe(0);
    expect(world.sim.sim.getThreat(threatId)?.status).not.toBe("unsolved");
    const refused = (await status(world)).refused ?? [];
    expect(refused.find((r) => r.threat_id === fresh.id)?.reason).toMatch(/archived/);
    const posts = world.gh.counters().byRoute["POST /repos/{owner}/{repo}/issues"] ?? 0;
    expect(await sync(world)).toBe(0);
    expect(world.gh.counters().byRoute["POST /repos/{owner}/{repo}/issues"] ?? 0).toBe(posts);
  });
});

describe("unlabelled issues (a person may remove the managed label)", () => {
  it("a person who removes the managed label and closes the issue still gives a verdict", async () => {
    world = await startWorld({ threats: 8 });
    expect(await sync(world)).toBe(0);
    const { number, threatId } = firstIssue(world);
    world.gh.person.relabel(REPO, number, ["triaged"], "alice");
    world.gh.person.close(REPO, number, { reason: "completed", login: "alice" });
    expect(await sync(world)).toBe(0);
    const threat = world.sim.sim.getThreat(threatId);
    expect(["solved", "pending"]).toContain(threat?.status);
    expect(threat?.status_note).toContain("alice");
    // Once the connector's own writes are read back, an idle cycle costs nothing but 304s.
    expect(await sync(world)).toBe(0);
    const before = world.gh.counters();
    expect(await sync(world)).toBe(0);
    const after = world.gh.counters();
    expect(after.writes).toBe(before.writes);
    expect(after.rateLimitPoints - before.rateLimitPoints).toBe(0);
  });
});

describe("a create refused as invalid (the minimal-body fallback)", () => {
  it("a 422 on a create falls back once to a minimal body that keeps the marker and revision", async () => {
    world = await startWorld({ threats: 8 });
    world.gh.faults.refuseBodyNext("POST", "/repos/{owner}/{repo}/issues");
    expect(await sync(world)).toBe(0);
    const minimal = world.gh.issues(REPO).filter((i) => (i.body ?? "").includes("GitHub refused the full"));
    expect(minimal.length).toBeGreaterThanOrEqual(1);
    for (const issue of world.gh.issues(REPO)) {
      expect(issue.body).toMatch(MARKER);
      expect(issue.body).toMatch(/threatbridge:rev=/);
    }
    expect((await status(world)).threats.mapped).toBe(world.gh.issues(REPO).length);
  });
});

describe("removed assets", () => {
  it("a person who reopens an issue closed for asset removal wins: it stays open, with one comment", async () => {
    world = await startWorld({ threats: 8 });
    expect(await sync(world)).toBe(0);
    const { number, threatId } = firstIssue(world);
    const assetId = world.sim.sim.getThreat(threatId)?.asset_id ?? "";
    world.sim.sim.removeAsset(assetId);
    expect(await sync(world)).toBe(0);
    expect(world.gh.issues(REPO).find((i) => i.number === number)?.state).toBe("closed");
    world.gh.person.reopen(REPO, number, "alice");
    expect(await sync(world)).toBe(0);
    expect(await sync(world)).toBe(0);
    expect(world.gh.issues(REPO).find((i) => i.number === number)?.state).toBe("open");
    const removals = world.gh
      .comments(REPO, number)
      .filter((c) => c.body.includes("asset of this threat was removed"));
    expect(removals).toHaveLength(1);
  });
});
