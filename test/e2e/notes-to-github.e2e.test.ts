import { afterEach, describe, expect, it } from "vitest";
import { REPO, startWorld, type World } from "./world.js";
import { analystWrites, conversation } from "./analyst-notes.js";

/**
 * Contract, "The analyst's words on GitHub" (`notes.to_github`), through the built CLI against the
 * simulator and the GitHub stand-in: the issue shows the analyst's current text of the note, in its
 * body when created and then in one comment per change; the connector's own section and its echo
 * post nothing; a lost state and a crash at the comment's write end with exactly these comments.
 */

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const CONFIG = "notes:\n  comments: 3\n  to_github: true\n";

async function sync(w: World, args: string[] = []): Promise<void> {
  const run = await w.run(["sync", "-c", w.configPath, ...args]);
  expect(run.code, run.stderr + run.stdout).toBe(0);
}

async function oneIssue(w: World, note: string): Promise<{ id: string; number: number }> {
  const threat = w.sim.sim.addThreat({
    name: "Open admin panel",
    severity: "high",
    status: "unsolved",
    asset_id: w.sim.sim.assetIds()[0],
    note,
  });
  await sync(w);
  const issue = w.gh.issues(REPO)[0];
  if (!issue) throw new Error("no issue was created");
  return { id: threat.id, number: issue.number };
}

describe("notes.to_github (end to end)", () => {
  it("the analyst writes, changes and clears a note: the body shows the first text, then one comment per change and one saying it was cleared; a person's GitHub comment changes only the connector's section", async () => {
    world = await startWorld({ threats: 0, assets: 1 }, CONFIG);
    const w = world;
    const { id, number } = await oneIssue(w, "Confirmed exploitable.");
    const body = w.gh.issues(REPO)[0]?.body ?? "";
    expect(body).toContain("### Platform note\n\n> Confirmed exploitable.\n\n<!-- threatbridge:note=");
    expect(conversation(w, number)).toEqual([]);

    // A person's comment: the note's section names it; nothing comes back to the issue.
    w.gh.person.comment(REPO, number, "Patched on staging.", "alice");
    await sync(w);
    expect(String(w.sim.sim.getThreat(id)?.["note"])).toContain("Patched on staging.");
    await sync(w);
    expect(conversation(w, number)).toEqual(["alice: Patched on staging."]);

    // The analyst changes the text (twice before a cycle: one comment, the newest), then clears it.
    analystWrites(w, id, "The vendor patch ships Tuesday.");
    analystWrites(w, id, "The vendor patch ships Tuesday; @bob owns #12.");
    const dry = await w.run(["sync", "-c", w.configPath, "--dry-run", "--json"]);
    expect(dry.code, dry.stderr).toBe(0);
    const lines = dry.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((l) => l["action"] === "note_comment")).toEqual([
      expect.objectContaining({ action: "note_comment", threat_id: id, repository: REPO, issue: number }),
    ]);
    const run = await w.run(["sync", "-c", w.configPath], { logs: true });
    expect(run.code, run.stderr).toBe(0);
    const audit = run.stderr
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((l) => l["action"] === "note_comment");
    expect(audit).toEqual([
      expect.objectContaining({ level: "info", audit: true, threat_id: id, issue: `${REPO}#${number}` }),
    ]);
    // The echo of the section write and an idle cycle post nothing.
    await sync(w);
    await sync(w);
    analystWrites(w, id, "");
    await sync(w);
    await sync(w);
    expect(conversation(w, number)).toEqual([
      "alice: Patched on staging.",
      "note: > The vendor patch ships Tuesday; @\u200Bbob owns #\u200B12.",
      "note: _The analyst cleared the note._",
    ]);
    // The connector's comments never come back into the note's section.
    expect(String(w.sim.sim.getThreat(id)?.["note"])).not.toContain("Platform note");
    // `status`: the note's section written, no analyst's text waiting for its comment.
    const status = JSON.parse((await w.run(["status", "-c", w.configPath, "--json"])).stdout) as {
      notes?: Record<string, number>;
    };
    expect(status.notes).toEqual({ written: 1, absent: 0 });
  });

  it("the state is lost (its files deleted): each issue whose threat has analyst text costs one comment read, and only a text its comments do not show is posted", async () => {
    world = await startWorld({ threats: 0, assets: 1 }, CONFIG);
    const w = world;
    const a = await oneIssue(w, "");
    analystWrites(w, a.id, "Shown in a comment.");
    await sync(w);
    const b = w.sim.sim.addThreat({
      name: "Second",
      severity: "high",
      status: "unsolved",
      asset_id: w.sim.sim.assetIds()[0],
      note: "Shown in the body.",
    });
    const c = w.sim.sim.addThreat({
      name: "Third",
      severity: "high",
      status: "unsolved",
      asset_id: w.sim.sim.assetIds()[0],
    });
    await sync(w);
    await sync(w);
    const issueOf = (threatId: string) =>
      w.gh.issues(REPO).find((i) => i.body?.includes(threatId))?.number ?? 0;
    expect(conversation(w, a.number)).toEqual(["note: > Shown in a comment."]);
    await w.loseState();
    analystWrites(w, b.id, "Changed while the state was lost.");
    const before = w.gh.counters().byRoute["GET /repos/{owner}/{repo}/issues/{issue_number}/comments"] ?? 0;
    await sync(w);
    await sync(w);
    const reads =
      (w.gh.counters().byRoute["GET /repos/{owner}/{repo}/issues/{issue_number}/comments"] ?? 0) - before;
    expect(conversation(w, a.number)).toEqual(["note: > Shown in a comment."]);
    expect(conversation(w, issueOf(b.id))).toEqual(["note: > Changed while the state was lost."]);
    expect(conversation(w, issueOf(c.id))).toEqual([]);
    // One comment read for each of the two issues whose threat has analyst text, none for the third.
    expect(reads).toBe(2);
  });

  it("a crash at the comment's write (killed once GitHub took it, before its answer), a lost answer, and a refused one: each text is posted once, none lost", async () => {
    world = await startWorld({ threats: 0, assets: 1 }, CONFIG);
    const w = world;
    const { id, number } = await oneIssue(w, "");
    const route = "/repos/{owner}/{repo}/issues/{issue_number}/comments";
    // Killed (SIGKILL) right after GitHub processed the comment, before it answered.
    analystWrites(w, id, "First change.");
    const child = w.spawnCli(["sync", "-c", w.configPath]);
    const exited = new Promise<NodeJS.Signals | null>((r) =>
      child.once("exit", (_code, signal) => r(signal)),
    );
    w.gh.faults.afterWrites(1, () => child.kill("SIGKILL"));
    expect(await exited).toBe("SIGKILL");
    expect(conversation(w, number)).toEqual(["note: > First change."]);
    await sync(w);
    // Its answer lost: the issue's comments are read, and it is not posted again.
    analystWrites(w, id, "Second change.");
    w.gh.faults.loseNextResponse("POST", route);
    await w.run(["sync", "-c", w.configPath]);
    await sync(w);
    // Refused (a 502): posted at the next try.
    analystWrites(w, id, "Third change.");
    w.gh.faults.failNext("POST", route, 502);
    await w.run(["sync", "-c", w.configPath]);
    await sync(w);
    await sync(w);
    expect(conversation(w, number)).toEqual([
      "note: > First change.",
      "note: > Second change.",
      "note: > Third change.",
    ]);
  });
});
