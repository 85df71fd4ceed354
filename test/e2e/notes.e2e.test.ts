import { afterEach, describe, expect, it } from "vitest";
import { REPO, startWorld, type World } from "./world.js";

/**
 * Contract, "The conversation back" → "Notes", through the built CLI against the simulator and the
 * GitHub stand-in: the connector's section of the threat's note, between its two marker lines, cut
 * at `notes.max_length` with "…", the analyst's text outside it kept.
 */

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const BEGIN = "--- threatbridge: GitHub ---";
const END = "--- threatbridge: end ---";

describe("notes (end to end)", () => {
  it("notes: max_length: a short section (100) is a valid setting, and the section is cut there with …; the analyst's text is kept", async () => {
    world = await startWorld({ threats: 0, assets: 1 }, "notes:\n  comments: 3\n  max_length: 100\n");
    const w = world;
    const analyst = "Triaged by the blue team.\nOwner: ops";
    const threat = w.sim.sim.addThreat({
      name: "one",
      severity: "high",
      status: "unsolved",
      asset_id: w.sim.sim.assetIds()[0],
      note: analyst,
    });
    const first = await w.run(["sync", "-c", w.configPath]);
    expect(first.code, first.stderr + first.stdout).toBe(0);
    const issue = w.gh.issues(REPO)[0];
    if (!issue) throw new Error("no issue was created");
    w.gh.person.comment(REPO, issue.number, `A long answer: ${"x".repeat(300)}`, "alice");
    expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);

    const note = String(w.sim.sim.getThreat(threat.id)?.["note"]);
    expect(note.startsWith(`${analyst}\n\n${BEGIN}\n`)).toBe(true);
    const section = note.slice(analyst.length + 2);
    expect(section.length).toBeLessThanOrEqual(100);
    expect(section.endsWith(`…\n${END}`)).toBe(true);
  });
  it("the note's section names the assignees a person set (the issue listing keeps them), in the next cycle and after", async () => {
    world = await startWorld({ threats: 0, assets: 1 }, "notes:\n  comments: 3\n");
    const w = world;
    const threat = w.sim.sim.addThreat({
      name: "one",
      severity: "high",
      status: "unsolved",
      asset_id: w.sim.sim.assetIds()[0],
    });
    expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);
    const issue = w.gh.issues(REPO)[0];
    if (!issue) throw new Error("no issue was created");
    const section = () => String(w.sim.sim.getThreat(threat.id)?.["note"]);
    expect(section()).toContain(`${BEGIN}\n`);
    expect(section()).not.toContain("Assignees:");
    // A person assigns the issue and two people comment, in GitHub's web UI.
    w.gh.person.reassign(REPO, issue.number, ["alice", "bob"], "alice");
    w.gh.person.comment(REPO, issue.number, "Taking this one.", "alice");
    w.gh.person.comment(REPO, issue.number, "Thanks.", "carol");
    expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);
    expect(section()).toContain("Assignees: alice, bob\n");
    expect(section()).toContain("alice at ");
    expect(section()).toContain("carol at ");
    // A later cycle with nothing new keeps them; an unassignment is shown as well.
    expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);
    expect(section()).toContain("Assignees: alice, bob\n");
    w.gh.person.reassign(REPO, issue.number, ["bob"], "bob");
    expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);
    expect(section()).toContain("Assignees: bob\n");
  });
  it("an idle `sync` with notes on costs GitHub no rate-limit point: the comment listing's ETag is kept in the state, so the next process lists with it and is answered 304", async () => {
    world = await startWorld({ threats: 0, assets: 1 }, "notes:\n  comments: 3\n");
    const w = world;
    w.sim.sim.addThreat({
      name: "one",
      severity: "high",
      status: "unsolved",
      asset_id: w.sim.sim.assetIds()[0],
    });
    expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);
    const issue = w.gh.issues(REPO)[0];
    if (!issue) throw new Error("no issue was created");
    w.gh.person.comment(REPO, issue.number, "Patched on the staging hosts.", "alice");
    // The comment's note, then a cycle with nothing new (it learns the listing's validator).
    for (let i = 0; i < 2; i += 1) expect((await w.run(["sync", "-c", w.configPath])).code).toBe(0);
    for (let i = 0; i < 2; i += 1) {
      const before = w.gh.counters();
      const run = await w.run(["sync", "-c", w.configPath]);
      expect(run.code, run.stderr).toBe(0);
      const after = w.gh.counters();
      // The issues' listing and the comments' listing, both conditional, both unchanged.
      expect(after.rateLimitPoints - before.rateLimitPoints).toBe(0);
      expect(after.notModified - before.notModified).toBe(2);
    }
  });
});
