import { readFile, writeFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { REPO, startWorld, type World } from "./world.js";
import { analystWrites, conversation } from "./analyst-notes.js";

/**
 * Contract, "The analyst's words on GitHub": "Whenever the text differs from what the issue last
 * showed (also for issues that existed when `to_github` was switched on), the connector posts one
 * comment". Through the built CLI against the simulator and the GitHub stand-in: issues made with
 * `to_github` off, then switched on.
 */

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const OFF = "notes:\n  comments: 3\n  to_github: false\n";
const ON = "notes:\n  comments: 3\n  to_github: true\n";
const COMMENTS = "/repos/{owner}/{repo}/issues/{issue_number}/comments";
const LISTING = "GET /v1/threats";
const ONE_THREAT = "GET /v1/threats/{id}";

async function sync(w: World): Promise<void> {
  const run = await w.run(["sync", "-c", w.configPath]);
  expect(run.code, run.stderr + run.stdout).toBe(0);
}

interface Counts {
  commentReads: number;
  comments: number;
  githubWrites: number;
  listings: number;
  threatReads: number;
}

function counts(w: World): Counts {
  const gh = w.gh.counters();
  const sim = w.sim.sim.stats().byRoute;
  return {
    commentReads: gh.byRoute[`GET ${COMMENTS}`] ?? 0,
    comments: gh.byRoute[`POST ${COMMENTS}`] ?? 0,
    githubWrites: gh.writes,
    listings: sim[LISTING] ?? 0,
    threatReads: sim[ONE_THREAT] ?? 0,
  };
}

function since(w: World, before: Counts): Counts {
  const now = counts(w);
  return {
    commentReads: now.commentReads - before.commentReads,
    comments: now.comments - before.comments,
    githubWrites: now.githubWrites - before.githubWrites,
    listings: now.listings - before.listings,
    threatReads: now.threatReads - before.threatReads,
  };
}

/** Three issues made with `to_github` off: two threats whose note holds analyst text, one without. */
async function threeIssues(w: World): Promise<{ a: number; b: number; c: number; ids: string[] }> {
  const asset = w.sim.sim.assetIds()[0];
  const a = w.sim.sim.addThreat({
    name: "A",
    severity: "high",
    status: "unsolved",
    asset_id: asset,
    note: "Text of A.",
  });
  const b = w.sim.sim.addThreat({ name: "B", severity: "high", status: "unsolved", asset_id: asset });
  const c = w.sim.sim.addThreat({ name: "C", severity: "high", status: "unsolved", asset_id: asset });
  await sync(w);
  analystWrites(w, b.id, "Text of B, @bob owns #12.");
  await sync(w);
  await sync(w);
  const issueOf = (id: string) => w.gh.issues(REPO).find((i) => i.body?.includes(id))?.number ?? 0;
  return { a: issueOf(a.id), b: issueOf(b.id), c: issueOf(c.id), ids: [a.id, b.id, c.id] };
}

describe("notes.to_github switched on over existing issues (end to end)", () => {
  it("each issue whose threat has analyst text gets exactly one comment with it, none without; one listing read and one comment read per such issue; the next cycles read and write nothing more", async () => {
    world = await startWorld({ threats: 0, assets: 1 }, OFF);
    const w = world;
    const { a, b, c, ids } = await threeIssues(w);
    expect(w.gh.issues(REPO)).toHaveLength(3);
    expect(conversation(w, a)).toEqual([]);
    expect(w.gh.issues(REPO).every((i) => !(i.body ?? "").includes("### Platform note"))).toBe(true);

    await w.writeConfig(ON);
    const before = counts(w);
    await sync(w);
    const backfill = since(w, before);
    expect(conversation(w, a)).toEqual(["note: > Text of A."]);
    expect(conversation(w, b)).toEqual(["note: > Text of B, @\u200Bbob owns #\u200B12."]);
    expect(conversation(w, c)).toEqual([]);
    // One walk of the listing (two pages: the simulator ends a walk with an empty page) besides the
    // cycle's own poll, no read of a threat one by one, one comment read per issue whose threat has
    // analyst text, and its comment.
    expect(backfill).toEqual({ commentReads: 2, comments: 2, githubWrites: 2, listings: 3, threatReads: 0 });

    // Idle cycles after the backfill: the poll only.
    const idle = counts(w);
    await sync(w);
    await sync(w);
    expect(since(w, idle)).toEqual({
      commentReads: 0,
      comments: 0,
      githubWrites: 0,
      listings: 2,
      threatReads: 0,
    });
    expect(conversation(w, a)).toEqual(["note: > Text of A."]);
    expect(conversation(w, c)).toEqual([]);

    // Later changes go as before: one comment each; A's issue is known to show its text (no read),
    // C's was never compared (no text then), so its first comment checks the issue's comments once.
    analystWrites(w, ids[0] ?? "", "A again.");
    analystWrites(w, ids[2] ?? "", "Now C has one.");
    const change = counts(w);
    await sync(w);
    expect(conversation(w, a)).toEqual(["note: > Text of A.", "note: > A again."]);
    expect(conversation(w, c)).toEqual(["note: > Now C has one."]);
    expect(since(w, change)).toMatchObject({ commentReads: 1, comments: 2, threatReads: 0 });

    // A lost state: the intake reads every threat again under `to_github`, so no walk is made for the
    // backfill; each issue whose threat has analyst text costs one comment read, and nothing is posted.
    await w.loseState();
    const lost = counts(w);
    await sync(w);
    await sync(w);
    // Two syncs' polls: the first from the stream's start (a page and the empty page ending it).
    expect(since(w, lost)).toMatchObject({ listings: 3, commentReads: 3, comments: 0, threatReads: 0 });
  });

  it("switched off and on again: a text changed while it was off is posted, an unchanged one is not", async () => {
    world = await startWorld({ threats: 0, assets: 1 }, ON);
    const w = world;
    const { a, b, ids } = await threeIssues(w);
    expect(conversation(w, a)).toEqual([]);
    expect(conversation(w, b)).toEqual(["note: > Text of B, @\u200Bbob owns #\u200B12."]);
    await w.writeConfig(OFF);
    await sync(w);
    analystWrites(w, ids[0] ?? "", "A changed while off.");
    await sync(w);
    await sync(w);
    expect(conversation(w, a)).toEqual([]);

    await w.writeConfig(ON);
    const before = counts(w);
    await sync(w);
    await sync(w);
    expect(conversation(w, a)).toEqual(["note: > A changed while off."]);
    expect(conversation(w, b)).toEqual(["note: > Text of B, @\u200Bbob owns #\u200B12."]);
    // What each issue last showed is known from before: no comment read.
    expect(since(w, before)).toMatchObject({ commentReads: 0, comments: 1, threatReads: 0 });
  });

  it("killed (SIGKILL) at each call of the backfill (its listing, each comment read, each comment): every text is posted once, none lost", async () => {
    world = await startWorld({ threats: 0, assets: 1 }, OFF);
    const w = world;
    const { a, b, c } = await threeIssues(w);
    await w.writeConfig(ON);
    // Paced writes, so that a kill after a read lands before the comment that follows it.
    const yaml = await readFile(w.configPath, "utf8");
    await writeFile(w.configPath, yaml.replace("min_interval_ms: 0", "min_interval_ms: 400"));
    // The calls of the path, each counted in the run it kills: its listing's walk (after the poll),
    // then per issue its comment read and its comment; again until every text is on its issue.
    const kills: Array<[string, (n: Counts) => boolean]> = [
      ["listing", (n) => n.listings >= 2],
      ["comment read", (n) => n.commentReads >= 1],
      ["comment", (n) => n.comments >= 1],
      ["comment read", (n) => n.commentReads >= 1],
      ["comment", (n) => n.comments >= 1],
      ["comment read", (n) => n.commentReads >= 1],
      ["comment", (n) => n.comments >= 1],
    ];
    const killedAt: string[] = [];
    for (const [call, reached] of kills) {
      if (conversation(w, a).length + conversation(w, b).length >= 2) break;
      const from = counts(w);
      const child = w.spawnCli(["sync", "-c", w.configPath]);
      let done = false;
      const exited = new Promise<void>((r) => child.once("exit", () => r(void (done = true))));
      const until = Date.now() + 30_000;
      while (!done && !reached(since(w, from)) && Date.now() < until)
        await new Promise((r) => setTimeout(r, 5));
      if (!done) killedAt.push(call);
      child.kill("SIGKILL");
      await exited;
    }
    // Killed after its listing, after a comment read and after a comment GitHub took.
    expect(new Set(killedAt)).toEqual(new Set(["listing", "comment read", "comment"]));
    await sync(w);
    await sync(w);
    expect(conversation(w, a)).toEqual(["note: > Text of A."]);
    expect(conversation(w, b)).toEqual(["note: > Text of B, @\u200Bbob owns #\u200B12."]);
    expect(conversation(w, c)).toEqual([]);
    const status = JSON.parse((await w.run(["status", "-c", w.configPath, "--json"])).stdout) as {
      intents: unknown[];
      queue: { total: number };
    };
    expect(status.intents).toEqual([]);
    expect(status.queue.total).toBe(0);
  }, 120_000);
});
