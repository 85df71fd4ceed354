import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGitHub, type GitHubGateway } from "../../src/github/index.js";
import { markerFor } from "../../src/shared/index.js";
import { startGitHubStandIn, type RunningStandIn } from "../../src/github-stand-in/index.js";
import { fakeTime } from "./fake-time.js";

/**
 * Who made an issue's latest close or reopen, at most one read per person's change and one for all
 * the changes a poll found, through the gateway against the GitHub stand-in.
 */

const REPO = "acme/threats";
const EVENTS = "GET /repos/{owner}/{repo}/issues/events";
const ISSUE_EVENTS = "GET /repos/{owner}/{repo}/issues/{issue_number}/events";
const threat = (i: number) => `3f2b8c1e-9a4d-4e6f-8b2a-${String(i).padStart(12, "0")}`;

let standIn: RunningStandIn;
let gh: GitHubGateway;
let time = fakeTime();

beforeEach(async () => {
  time = fakeTime(Date.now());
  // GitHub's clock moves a second per step here, so that events and watermarks are ordered.
  standIn = await startGitHubStandIn({ clock: time.clock });
  gh = createGitHub({
    apiUrl: standIn.url,
    auth: { token: "ghp_standin" },
    writeBudget: { perMinute: 0, perHour: 0, minIntervalMs: 0 },
    managedLabel: "threatbridge",
    retryAfterBaseValue: 1,
    clock: time.clock,
    sleep: time.sleep,
  });
});

afterEach(async () => {
  await standIn.close();
});

async function createIssues(n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await gh.createIssue(REPO, { title: `t${i}`, body: markerFor(threat(i)), labels: [], assignees: [] });
    time.advance(1000);
  }
}

/** Reads per route made by `fn`, as the stand-in counted them. */
async function readsOf(fn: () => Promise<unknown>): Promise<Record<string, number>> {
  const before = { ...standIn.counters().byRoute };
  await fn();
  const out: Record<string, number> = {};
  for (const [route, n] of Object.entries(standIn.counters().byRoute)) {
    if (route.startsWith("GET ") && n > (before[route] ?? 0)) out[route] = n - (before[route] ?? 0);
  }
  return out;
}

describe("who changed an issue's state (one read for a poll's people's changes)", () => {
  it("the people's changes one poll found share one read of the repository's event list", async () => {
    await createIssues(6);
    const since = (await gh.listChangedIssues(REPO, null)).issues.at(-1)?.updatedAt ?? null;
    time.advance(60_000);
    standIn.person.close(REPO, 2, { reason: "not_planned", login: "alice" });
    time.advance(1000);
    standIn.person.close(REPO, 4, { reason: "completed", login: "bob" });
    time.advance(1000);
    // The connector closed 5 (an answer it lost); carol reopened it.
    await gh.updateIssue(REPO, 5, { state: "closed", stateReason: "completed" });
    time.advance(1000);
    standIn.person.reopen(REPO, 5, "carol");
    const changed = (await gh.listChangedIssues(REPO, since)).issues.filter((i) =>
      [2, 4, 5].includes(i.number),
    );
    expect(changed.map((i) => i.number)).toEqual([2, 4, 5]);

    let who: Awaited<ReturnType<GitHubGateway["lastStateChanges"]>> = [];
    const reads = await readsOf(async () => (who = await gh.lastStateChanges(changed, since)));
    expect(who).toEqual([
      { event: "closed", login: "alice", viaApp: false, bySelf: false, stateReason: "not_planned" },
      { event: "closed", login: "bob", viaApp: false, bySelf: false, stateReason: "completed" },
      { event: "reopened", login: "carol", viaApp: false, bySelf: false, stateReason: "reopened" },
    ]);
    // One page of the repository's events (and the token's login, once); no issue's own events.
    expect(reads[EVENTS]).toBe(1);
    expect(reads[ISSUE_EVENTS]).toBeUndefined();
  });

  it("a close whose answer names who closed it (`closed_by`, a single issue's answer) costs no read with a token", async () => {
    await createIssues(2);
    standIn.person.close(REPO, 1, { reason: "completed", login: "alice" });
    await gh.updateIssue(REPO, 2, { state: "closed", stateReason: "not_planned" });
    const one = await gh.getIssue(REPO, 1);
    const own = await gh.getIssue(REPO, 2);
    if (one === null || own === null) throw new Error("issues were created");
    await gh.whoAmI();
    let who: Awaited<ReturnType<GitHubGateway["lastStateChanges"]>> = [];
    const reads = await readsOf(async () => (who = await gh.lastStateChanges([one, own], null)));
    expect(who).toEqual([
      { event: "closed", login: "alice", viaApp: false, bySelf: false, stateReason: "completed" },
      {
        event: "closed",
        login: "threatbridge[bot]",
        viaApp: false,
        bySelf: true,
        stateReason: "not_planned",
      },
    ]);
    expect(reads).toEqual({});
  });

  it("an issue the repository's event list does not show within its bound is read on its own", async () => {
    await createIssues(3);
    standIn.person.close(REPO, 1, { reason: "completed", login: "alice" });
    time.advance(1000);
    // 120 later events of another issue push alice's close off the list's first page.
    for (let i = 0; i < 60; i++) {
      standIn.person.relabel(REPO, 3, [`x${i}`], "dave");
      standIn.person.relabel(REPO, 3, [], "dave");
    }
    standIn.person.close(REPO, 2, { reason: "not_planned", login: "bob" });
    const [first, second] = (await gh.listChangedIssues(REPO, null)).issues.filter((i) => i.number < 3);
    if (first === undefined || second === undefined) throw new Error("two closed issues");
    let who: Awaited<ReturnType<GitHubGateway["lastStateChanges"]>> = [];
    const reads = await readsOf(async () => (who = await gh.lastStateChanges([first, second], null)));
    expect(who.map((w) => w?.login)).toEqual(["alice", "bob"]);
    // Two issues: the shared list is read one page at most, then issue 1's own events.
    expect(reads[EVENTS]).toBe(1);
    expect(reads[ISSUE_EVENTS]).toBe(1);
  });
});
