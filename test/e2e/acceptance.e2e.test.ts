import { afterEach, describe, expect, it } from "vitest";
import type { Clock } from "../../src/shared/clock.js";
import { threatOf } from "./people-helpers.js";
import { REPO, startWorld, type World } from "./world.js";

/**
 * Contract, "Workflow" → "Risk acceptance" and "Recurrence": a person's "not planned" close with
 * the acceptance label becomes `accepted` on the platform until an end, a warning comes before it,
 * and at the end the threat is `unsolved` again and its issue reopened (or, with
 * `recurrence: new_issue`, a new issue opened). Built CLI in this process, against the simulator
 * and the GitHub stand-in; days pass through the engine's clock (real time plus an offset).
 */

const DAY = 86_400_000;
const ACCEPTANCE = `acceptance:
  label: risk-accepted
  default: 30d
  max: 90d
  warn_before: 7d
`;

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function later(days: number): Clock {
  return { now: () => Date.now() + days * DAY };
}

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

async function sync(w: World, days = 0): Promise<void> {
  const result = await w.run(["sync", "-c", w.configPath], days === 0 ? {} : { clock: later(days) });
  expect(result.code, result.stderr).toBe(0);
}

/** An open issue whose threat is `unsolved`, labelled and closed "not planned" by alice. */
async function acceptOne(w: World, comment?: string): Promise<{ number: number; threatId: string }> {
  await sync(w);
  const issue = w.gh
    .issues(REPO)
    .find((i) => i.state === "open" && w.sim.sim.getThreat(threatOf(i.body))?.status === "unsolved");
  if (!issue) throw new Error("no open issue of an unsolved threat");
  w.gh.person.relabel(REPO, issue.number, [...issue.labels, "risk-accepted"], "alice");
  if (comment !== undefined) w.gh.person.comment(REPO, issue.number, comment, "alice");
  w.gh.person.close(REPO, issue.number, { reason: "not_planned", login: "alice" });
  return { number: issue.number, threatId: threatOf(issue.body) };
}

const comments = (w: World, number: number): string[] => w.gh.comments(REPO, number).map((c) => c.body);

describe("risk acceptance that expires (contract, Workflow: Risk acceptance)", () => {
  it("a labelled not-planned close is accepted until the typed date, warned once before it, and reopened at its end", async () => {
    world = await startWorld({ threats: 10 }, ACCEPTANCE);
    const w = world;
    const until = day(Date.now() + 20 * DAY);
    const { number, threatId } = await acceptOne(w, `We take this one.\nAccepted until: ${until}`);
    await sync(w);

    const threat = w.sim.sim.getThreat(threatId);
    expect(threat?.status).toBe("accepted");
    expect(threat?.status_note).toBe(`Risk accepted on GitHub (${REPO}#${number}) by alice until ${until}.`);
    expect(comments(w, number).filter((c) => c.includes(`Risk accepted until ${until}`))).toHaveLength(1);
    const status = JSON.parse((await w.run(["status", "-c", w.configPath, "--json"])).stdout) as {
      acceptances: Array<{ threat_id: string; until: string; by: string; step: string }>;
    };
    expect(status.acceptances).toEqual([
      expect.objectContaining({
        threat_id: threatId,
        by: "alice",
        step: "announced",
        until: expect.stringMatching(`^${until}`),
      }),
    ]);

    // Nothing due: a cycle writes nothing (the comments stay as they were).
    await sync(w, 5);
    expect(comments(w, number)).toHaveLength(2);
    const text = (await w.run(["status", "-c", w.configPath])).stdout;
    expect(text).toContain(
      `accepted:   1 risk acceptances\n            ${REPO}#${number} until ${until} (by alice, announced)`,
    );

    // In the warning's window: one warning, and only one however many cycles run.
    await sync(w, 14);
    await sync(w, 15);
    expect(
      comments(w, number).filter((c) => c.includes("risk acceptance of this threat ends on")),
    ).toHaveLength(1);
    expect(w.gh.issues(REPO).find((i) => i.number === number)?.state).toBe("closed");

    // Past its end: unsolved on the platform, the issue reopened with a comment saying why.
    await sync(w, 21);
    w.sim.sim.settle();
    expect(w.sim.sim.getThreat(threatId)?.status).toBe("unsolved");
    expect(w.gh.issues(REPO).find((i) => i.number === number)?.state).toBe("open");
    expect(
      comments(w, number).filter((c) => c.includes("risk acceptance of this threat has ended")),
    ).toHaveLength(1);
    const after = JSON.parse((await w.run(["status", "-c", w.configPath, "--json"])).stdout) as {
      acceptances: unknown[];
    };
    expect(after.acceptances).toEqual([]);
  });

  it("a lost state file loses no acceptance: its end and its warning are read back from the connector's own comments, and it still expires on time", async () => {
    world = await startWorld({ threats: 10 }, ACCEPTANCE);
    const w = world;
    const until = day(Date.now() + 20 * DAY);
    const { number, threatId } = await acceptOne(w, `Accepted until: ${until}`);
    await sync(w);
    await sync(w, 14); // the warning goes out
    expect(
      comments(w, number).filter((c) => c.includes("risk acceptance of this threat ends on")),
    ).toHaveLength(1);

    await w.loseState();
    await sync(w, 15);
    const status = JSON.parse((await w.run(["status", "-c", w.configPath, "--json"])).stdout) as {
      acceptances: Array<{ threat_id: string; until: string; step: string }>;
    };
    expect(status.acceptances).toEqual([
      expect.objectContaining({
        threat_id: threatId,
        step: "warned",
        until: expect.stringMatching(`^${until}`),
      }),
    ]);
    // No second warning after the loss, and nothing reopened before the end.
    await sync(w, 16);
    expect(
      comments(w, number).filter((c) => c.includes("risk acceptance of this threat ends on")),
    ).toHaveLength(1);
    expect(w.gh.issues(REPO).find((i) => i.number === number)?.state).toBe("closed");

    await sync(w, 21);
    w.sim.sim.settle();
    expect(w.sim.sim.getThreat(threatId)?.status).toBe("unsolved");
    expect(w.gh.issues(REPO).find((i) => i.number === number)?.state).toBe("open");
  });

  it("a date later than max, in the past, unreadable, or two dates in one comment: the default end applies", async () => {
    world = await startWorld({ threats: 10 }, ACCEPTANCE);
    const w = world;
    const twoDates = `Accepted until: ${day(Date.now() + 10 * DAY)} or Accepted until: ${day(Date.now() + 11 * DAY)}`;
    const { number, threatId } = await acceptOne(w, twoDates);
    await sync(w);
    const fallback = day(Date.now() + 30 * DAY);
    expect(w.sim.sim.getThreat(threatId)?.status_note).toContain(`until ${fallback}`);
    expect(comments(w, number).some((c) => c.includes(`Risk accepted until ${fallback}`))).toBe(true);
  });

  it("acceptance: a default longer than max is capped at max (the config is valid, the end is max away)", async () => {
    world = await startWorld({ threats: 10 }, ACCEPTANCE.replace("default: 30d", "default: 120d"));
    const w = world;
    expect((await w.run(["config", "validate", "-c", w.configPath])).code).toBe(0);
    const { number, threatId } = await acceptOne(w, "Accepted until: soon");
    await sync(w);
    const capped = day(Date.now() + 90 * DAY);
    expect(w.sim.sim.getThreat(threatId)?.status).toBe("accepted");
    expect(w.sim.sim.getThreat(threatId)?.status_note).toContain(`until ${capped}`);
    expect(comments(w, number).some((c) => c.includes(`Risk accepted until ${capped}`))).toBe(true);
  });

  it("a person who reopens the issue before its end ends the acceptance with the usual reopen verdict", async () => {
    world = await startWorld({ threats: 10 }, ACCEPTANCE);
    const w = world;
    const { number, threatId } = await acceptOne(w);
    await sync(w);
    expect(w.sim.sim.getThreat(threatId)?.status).toBe("accepted");
    w.gh.person.reopen(REPO, number, "bob");
    await sync(w);
    w.sim.sim.settle();
    expect(w.sim.sim.getThreat(threatId)?.status).toBe("unsolved");
    // Its end passes with nothing sent: the acceptance is over.
    const before = comments(w, number).length;
    await sync(w, 40);
    expect(comments(w, number)).toHaveLength(before);
    expect(w.gh.issues(REPO).find((i) => i.number === number)?.state).toBe("open");
  });

  it("the dry run lists the acceptance, then the warning, then the expiry it would write, with totals", async () => {
    world = await startWorld({ threats: 10 }, ACCEPTANCE);
    const w = world;
    const { number } = await acceptOne(w);
    const totals = (out: string): string => out.split("\n").find((l) => l.startsWith("totals:")) ?? "";
    const planned = await w.run(["sync", "-c", w.configPath, "--dry-run"]);
    expect(totals(planned.stdout)).toContain("accept 1");
    await sync(w);
    const warn = await w.run(["sync", "-c", w.configPath, "--dry-run"], { clock: later(25) });
    expect(totals(warn.stdout)).toBe("totals: warn 1");
    const expire = await w.run(["sync", "-c", w.configPath, "--dry-run", "--json"], { clock: later(31) });
    const lines = expire.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { action: string; issue?: number });
    expect(lines).toContainEqual(expect.objectContaining({ action: "expire", issue: number }));
    // The dry runs wrote nothing.
    expect(comments(w, number)).toHaveLength(1);
  });
});

describe("recurrence: new_issue (contract, Workflow: Recurrence)", () => {
  it("an acceptance's end opens a new issue naming the old one, which stays closed and names the new one; the link moves", async () => {
    world = await startWorld({ threats: 10 }, `${ACCEPTANCE}recurrence: new_issue\n`);
    const w = world;
    const { number, threatId } = await acceptOne(w);
    await sync(w);
    await sync(w, 31);
    w.sim.sim.settle();
    const mine = w.gh.issues(REPO).filter((i) => threatOf(i.body) === threatId || i.body?.includes(threatId));
    const fresh = mine.find((i) => i.number !== number);
    expect(fresh?.state).toBe("open");
    expect(fresh?.body).toContain(`Recurrence of ${REPO}#${number}`);
    expect(fresh?.body).toContain(`<!-- threatbridge:threat=${threatId} occurrence=2 -->`);
    expect(w.gh.issues(REPO).find((i) => i.number === number)?.state).toBe("closed");
    expect(comments(w, number).some((c) => c.includes(`continues in ${REPO}#${fresh?.number}`))).toBe(true);
    const ref = w.sim.sim.getThreat(threatId)?.external_references.find((r) => r.system === "github");
    expect(ref?.external_id).toBe(`${REPO}#${fresh?.number}`);
    // Later cycles neither open a third issue nor take the old one for a duplicate.
    await sync(w, 32);
    expect(w.gh.issues(REPO).filter((i) => i.body?.includes(threatId))).toHaveLength(2);
  });

  it("lost answers to the new issue's create and to the old issue's note: found by the occurrence's marker and the comment's key, never sent twice", async () => {
    world = await startWorld({ threats: 10 }, "recurrence: new_issue\n");
    const w = world;
    await sync(w);
    const issue = w.gh.issues(REPO).find((i) => i.state === "open");
    if (!issue) throw new Error("no open issue");
    const id = threatOf(issue.body);
    w.sim.sim.updateThreat(id, { status: "solved" });
    await sync(w);
    w.sim.sim.updateThreat(id, { status: "unsolved" });
    w.gh.faults.loseNextResponse("POST", "/repos/{owner}/{repo}/issues");
    w.gh.faults.loseNextResponse("POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments");
    await w.run(["sync", "-c", w.configPath]);
    await sync(w);
    const both = w.gh.issues(REPO).filter((i) => i.body?.includes(id));
    expect(both).toHaveLength(2);
    const fresh = both.find((i) => i.number !== issue.number);
    expect(fresh?.body).toContain(`<!-- threatbridge:threat=${id} occurrence=2 -->`);
    expect(
      comments(w, issue.number).filter((c) => c.includes(`continues in ${REPO}#${fresh?.number}`)),
    ).toHaveLength(1);
    const ref = w.sim.sim.getThreat(id)?.external_references.find((r) => r.system === "github");
    expect(ref?.external_id).toBe(`${REPO}#${fresh?.number}`);
  });

  it("a solved threat unsolved again gets a new issue instead of a reopen", async () => {
    world = await startWorld({ threats: 10 }, "recurrence: new_issue\n");
    const w = world;
    await sync(w);
    const issue = w.gh.issues(REPO).find((i) => i.state === "open");
    if (!issue) throw new Error("no open issue");
    const id = threatOf(issue.body);
    w.sim.sim.updateThreat(id, { status: "solved" });
    await sync(w);
    expect(w.gh.issues(REPO).find((i) => i.number === issue.number)?.state).toBe("closed");
    w.sim.sim.updateThreat(id, { status: "unsolved" });
    const planned = await w.run(["sync", "-c", w.configPath, "--dry-run"]);
    expect(planned.stdout.split("\n").find((l) => l.startsWith("totals:"))).toContain("recur 1");
    expect(w.gh.issues(REPO).filter((i) => i.body?.includes(id))).toHaveLength(1);
    await sync(w);
    const both = w.gh.issues(REPO).filter((i) => i.body?.includes(id));
    expect(both).toHaveLength(2);
    expect(both.find((i) => i.number === issue.number)?.state).toBe("closed");
    expect(both.find((i) => i.number !== issue.number)?.body).toContain(
      `Recurrence of ${REPO}#${issue.number}`,
    );
  });

  it("after a lost state file, the next recurrence still gets its own issue: the occurrence is read back from the adopted issue's marker", async () => {
    world = await startWorld({ threats: 10 }, "recurrence: new_issue\n");
    const w = world;
    await sync(w);
    const issue = w.gh.issues(REPO).find((i) => i.state === "open");
    if (!issue) throw new Error("no open issue");
    const id = threatOf(issue.body);
    const recur = async (): Promise<void> => {
      w.sim.sim.updateThreat(id, { status: "solved" });
      await sync(w);
      w.sim.sim.updateThreat(id, { status: "unsolved" });
      await sync(w);
    };
    await recur();
    expect(w.gh.issues(REPO).filter((i) => i.body?.includes(id))).toHaveLength(2);

    await w.loseState();
    await sync(w);
    await recur();
    const all = w.gh.issues(REPO).filter((i) => i.body?.includes(id));
    expect(all).toHaveLength(3);
    expect(all.filter((i) => i.state === "open")).toHaveLength(1);
    expect(all.find((i) => i.state === "open")?.body).toContain(`occurrence=3 -->`);
  });
});
