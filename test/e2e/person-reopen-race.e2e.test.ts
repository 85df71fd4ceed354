import { afterEach, describe, expect, it } from "vitest";
import { sync, threatOf } from "./people-helpers.js";
import { REPO, startWorld, type World } from "./world.js";

/**
 * The conflict rule holds with no read before a reopen: a reopen is sent without reading the issue
 * first, because the one change a person can make to an issue the connector closed is to reopen it.
 * The built CLI's main in this process, against the simulator and the GitHub stand-in on 127.0.0.1.
 */

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("the conflict rule with no read before a reopen", () => {
  it("a person's reopen between the connector's writes stands: reopened once, by the person, and the platform stays unsolved", async () => {
    world = await startWorld({ threats: 8 });
    expect(await sync(world)).toBe(0);
    const w = world;
    const [y, x] = w.gh.issues(REPO);
    if (!x || !y) throw new Error("two issues are needed");
    // Both solved: the connector closes both issues.
    w.sim.sim.updateThreat(threatOf(y.body), { status: "solved", severity: "critical" });
    w.sim.sim.updateThreat(threatOf(x.body), { status: "solved", severity: "low" });
    expect(await sync(w)).toBe(0);
    expect(w.gh.issues(REPO).filter((i) => i.number === x.number || i.number === y.number)).toMatchObject([
      { state: "closed" },
      { state: "closed" },
    ]);
    // The platform reports both unsolved again: both are due to be reopened, Y's first.
    w.sim.sim.updateThreat(threatOf(y.body), { status: "unsolved" });
    w.sim.sim.updateThreat(threatOf(x.body), { status: "unsolved" });
    // Right after the connector's first write, a person reopens X.
    w.gh.faults.afterWrites(1, () => w.gh.person.reopen(REPO, x.number, "alice"));
    expect(await sync(w)).toBe(0);
    w.sim.sim.settle();
    expect(w.gh.issues(REPO).find((i) => i.number === y.number)?.state).toBe("open");
    expect(w.gh.issues(REPO).find((i) => i.number === x.number)?.state).toBe("open");
    // X was reopened once, by alice: the connector's reopen changed nothing on GitHub.
    const reopens = w.gh.events(REPO, x.number).filter((e) => e.event === "reopened");
    expect(reopens.map((e) => e.actor)).toEqual(["alice"]);
    expect(w.sim.sim.getThreat(threatOf(x.body))?.status).toBe("unsolved");
    // And later cycles leave it so, with no write.
    const writes = w.gh.counters().writes;
    expect(await sync(w)).toBe(0);
    expect(w.gh.counters().writes).toBe(writes);
    expect(w.gh.issues(REPO).find((i) => i.number === x.number)?.state).toBe("open");
  });
});
