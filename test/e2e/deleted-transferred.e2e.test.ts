import { afterEach, describe, expect, it } from "vitest";
import { firstIssue, OTHER_REPO, status, sync, threatOf } from "./people-helpers.js";
import { REPO, startWorld, type World } from "./world.js";

/**
 * A deleted issue means the person removed the ticket (the threat is no longer managed, no second
 * issue unless `reconcile --recreate`); a transferred issue is followed. The built CLI's commands,
 * run in this process (`World.run`), against the simulator and the GitHub stand-in on 127.0.0.1.
 */

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("deleted and transferred issues", () => {
  it("a deleted issue: the threat is no longer managed, no second issue, until reconcile --recreate", async () => {
    world = await startWorld({ threats: 8 });
    expect(await sync(world)).toBe(0);
    const { number, threatId } = firstIssue(world);
    const count = world.gh.issues(REPO).length;
    world.gh.person.deleteIssue(REPO, number);
    world.sim.sim.updateThreat(threatId, { name: "Renamed after the delete" });
    expect(await sync(world)).toBe(0);
    expect(await sync(world)).toBe(0);
    expect((await world.run(["reconcile", "-c", world.configPath])).code).toBe(0);
    expect(await sync(world)).toBe(0);
    expect(world.gh.issues(REPO)).toHaveLength(count - 1);
    expect(world.gh.issues(REPO).some((i) => threatOf(i.body) === threatId)).toBe(false);
    const deleted = (await status(world)).deleted_issues ?? [];
    expect(deleted).toContainEqual({ threat_id: threatId, issue: `${REPO}#${number}` });

    expect((await world.run(["reconcile", "-c", world.configPath, "--recreate"])).code).toBe(0);
    expect(await sync(world)).toBe(0);
    const again = world.gh.issues(REPO).filter((i) => threatOf(i.body) === threatId);
    expect(again).toHaveLength(1);
    world.sim.sim.settle();
    const ref = world.sim.sim.getThreat(threatId)?.external_references.find((r) => r.system === "github");
    expect(ref?.external_id).toBe(`${REPO}#${again[0]?.number ?? 0}`);
    expect((await status(world)).deleted_issues ?? []).toHaveLength(0);
  });

  it("a transferred issue keeps its verdicts and the platform link follows it to owner/name#N", async () => {
    world = await startWorld({ threats: 8 });
    expect(await sync(world)).toBe(0);
    const { number, threatId } = firstIssue(world);
    const moved = world.gh.person.transfer(REPO, number, OTHER_REPO, "alice");
    world.sim.sim.updateThreat(threatId, { name: "Renamed after the transfer" });
    expect(await sync(world)).toBe(0);
    world.sim.sim.settle();
    const ref = world.sim.sim.getThreat(threatId)?.external_references.find((r) => r.system === "github");
    expect(ref?.external_id).toBe(`${OTHER_REPO}#${moved}`);
    expect(world.gh.issues(OTHER_REPO).find((i) => i.number === moved)?.title).toContain(
      "Renamed after the transfer",
    );
    world.gh.person.close(OTHER_REPO, moved, { reason: "completed", login: "bob" });
    expect(await sync(world)).toBe(0);
    expect(world.sim.sim.getThreat(threatId)?.status_note).toContain("bob");
    expect(world.gh.issues(REPO).some((i) => threatOf(i.body) === threatId)).toBe(false);
  });
});

describe("deleted and transferred issues: recovery and reconcile", () => {
  it("reconcile after a lost state file converges when a linked issue was deleted, and creates no second issue", async () => {
    world = await startWorld({ threats: 8 });
    expect(await sync(world)).toBe(0);
    const { number, threatId } = firstIssue(world);
    const count = world.gh.issues(REPO).length;
    world.gh.person.deleteIssue(REPO, number);
    await world.loseState();
    expect((await world.run(["reconcile", "-c", world.configPath])).code).toBe(0);
    expect(await sync(world)).toBe(0);
    expect(world.gh.issues(REPO)).toHaveLength(count - 1);
    expect((await status(world)).deleted_issues).toContainEqual({
      threat_id: threatId,
      issue: `${REPO}#${number}`,
    });
  });

  it("a reopen's comment left unfinished is posted once on the issue's new place after a transfer", async () => {
    world = await startWorld({ threats: 8 });
    expect(await sync(world)).toBe(0);
    const { number, threatId } = firstIssue(world);
    world.sim.sim.updateThreat(threatId, { status: "false_positive" });
    expect(await sync(world)).toBe(0);
    world.sim.sim.updateThreat(threatId, { status: "unsolved" });
    world.gh.faults.failNext("POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments", 502);
    await sync(world);
    const moved = world.gh.person.transfer(REPO, number, OTHER_REPO, "alice");
    expect(await sync(world)).toBe(0);
    const reopens = world.gh
      .comments(OTHER_REPO, moved)
      .filter((c) => c.body.includes("Reopened by threatbridge"));
    expect(reopens).toHaveLength(1);
    expect((await world.run(["status", "-c", world.configPath, "--json"])).stdout).toContain('"intents":[]');
  });
});
