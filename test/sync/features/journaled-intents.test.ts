import { describe, expect, it } from "vitest";
import { markerFor } from "../../../src/shared/index.js";
import { Harness, makeConfig, REPO, threatId } from "../harness.js";
import { acceptanceOf, spelled } from "../feature-fields.js";

/**
 * Risk acceptance and recurrence became plug-ins (features/acceptance, features/recurrence): their
 * writes are feature steps now, but the intents they journal keep the shape the version before
 * wrote (a keyed `comment` naming its `step`, a `create` naming its issue's marker number: stored
 * as `occurrence` then, renamed `markerNumber` by the state's upgrade or import, test/state). A
 * state left by that version with such an intent unfinished (a crash, a lost answer) is resolved
 * after the upgrade as it was: found on GitHub, never written twice (contract, "Crash safety": intents).
 */

const ACCEPTANCE = { label: "risk-accepted", default: "30d", max: "90d", warn_before: "7d" };
const DAY = 86_400_000;

interface Disk {
  threats: Record<string, Record<string, unknown>>;
  intents: Record<string, Record<string, unknown>>;
}

/** The state on disk, changed as the version before would have left it. */
function edit(h: Harness, change: (disk: Disk) => void): void {
  if (h.disk === null) throw new Error("no state on disk");
  const disk = JSON.parse(h.disk) as Disk;
  change(disk);
  h.disk = JSON.stringify(disk);
}

describe("intents journaled before acceptance and recurrence were plug-ins", () => {
  it("a later occurrence's `create` intent whose issue landed: the issue is found by that occurrence's marker, not made again", async () => {
    const h = new Harness(makeConfig({ recurrence: "new_issue" }));
    const id = threatId(1);
    h.platform.put({ id, status: "unsolved", severity: "high", name: "Back again" });
    await h.settle();
    h.platform.put({ id, status: "solved" });
    await h.settle();
    const first = h.issueFor(id)[0];
    if (!first || first.state !== "closed") throw new Error("the first issue is not closed");
    // The version before crashed right after GitHub made occurrence 2's issue.
    h.platform.put({ id, status: "unsolved" });
    const landed = await h.github.createIssue(REPO, {
      title: "Back again",
      body: `Recurrence of ${REPO}#${first.number}\n\nbody\n\n${markerFor(id, 2)}`,
      labels: ["threatbridge"],
      assignees: [],
    });
    edit(h, (disk) => {
      disk.intents["i900"] = {
        id: "i900",
        kind: "create",
        subject: "threat",
        threatId: id,
        repo: REPO,
        markerNumber: 2,
        startedAt: new Date(Date.now() - 60_000).toISOString(),
      };
    });
    h.restart();
    const report = await h.settle();
    expect(report.ok).toBe(true);
    expect(h.ctx.state.intents).toEqual({});
    // One issue per occurrence: the one that landed is the threat's, and the old one names it once.
    expect(h.issueFor(id).map((i) => i.number)).toEqual([first.number, landed.number]);
    expect(spelled(h.ctx.state.threats.get(id))).toMatchObject({
      occurrence: 2,
      issue: { number: landed.number },
    });
    expect(first.comments.filter((c) => c.includes(`continues in ${REPO}#${landed.number}`))).toHaveLength(1);
    expect(h.events.some((e) => e.type === "intent_found")).toBe(true);
  });

  it("a risk acceptance's step `comment` intent that never reached GitHub: posted once under its key, and the step is done", async () => {
    const h = new Harness(makeConfig({ acceptance: ACCEPTANCE }));
    const id = threatId(2);
    h.platform.put({ id, status: "unsolved", severity: "high", name: "Accepted one" });
    await h.settle();
    // Accepted on the platform: the engine closes the issue as not planned.
    h.platform.put({ id, status: "accepted" });
    await h.settle();
    const issue = h.issueFor(id)[0];
    if (!issue || issue.state !== "closed") throw new Error("the issue is not closed");
    const until = new Date(Date.now() + 30 * DAY).toISOString();
    const body = `Risk accepted until ${until.slice(0, 10)} (end of that day, UTC). Journaled before the upgrade.`;
    // The version before recorded the acceptance and journaled its comment, then crashed.
    edit(h, (disk) => {
      const record = disk.threats[id];
      if (!record) throw new Error("no record");
      // The acceptance's slice (its feature's data on the threat).
      const held = { until, since: new Date().toISOString(), by: "alice", step: "accepted" };
      record["slices"] = {
        ...(record["slices"] as object | undefined),
        acceptance: JSON.stringify({ held }),
      };
      disk.intents["i901"] = {
        id: "i901",
        kind: "comment",
        subject: "threat",
        threatId: id,
        repo: REPO,
        number: issue.number,
        body,
        step: "accept",
        startedAt: new Date().toISOString(),
      };
    });
    h.restart();
    const report = await h.settle();
    expect(report.ok).toBe(true);
    expect(h.ctx.state.intents).toEqual({});
    // Posted by recovery under its key, and not planned again: the step is done.
    expect(issue.comments.filter((c) => c.includes("Risk accepted until"))).toHaveLength(1);
    expect(issue.comments.filter((c) => c.includes("Journaled before the upgrade."))).toHaveLength(1);
    expect(acceptanceOf(h.ctx.state.threats.get(id))).toMatchObject({ by: "alice", step: "announced" });
  });
});
