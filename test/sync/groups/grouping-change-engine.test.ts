import { describe, expect, it } from "vitest";
import { ASSET, Harness, makeConfig, REPO, threatId } from "../harness.js";
import { FakeWorkflowGitHub } from "../fake-workflow.js";
import { putGroup } from "../../../src/sync/records/state-updates.js";
import { planFor } from "../../../src/sync/plan/plan-for.js";
import { githubLink, toThreatView } from "../../../src/sync/render/normalize.js";

/**
 * Contract, "Workflow" → "Changing grouping", through the engine over in-memory fakes: a person
 * closes a single-mode group issue, the operator switches grouping off before the next cycle, and
 * the process may crash at any call of either side. Nothing is lost and nothing is doubled.
 */

const SAID = "grouping setting changed";
const statusOf = (h: Harness, n: number) => h.platform.threats.get(threatId(n))?.status;

function gh(h: Harness): FakeWorkflowGitHub {
  if (!(h.github instanceof FakeWorkflowGitHub)) throw new Error("no workflow fake");
  return h.github;
}

/** Three open members in one single-mode group issue, which a person then closes; grouping then off. */
async function closedThenSwitchedOff(): Promise<{ h: Harness; number: number }> {
  const h = new Harness(makeConfig({ grouping: { by: "asset", mode: "single" } }), new FakeWorkflowGitHub());
  for (const n of [1, 2, 3]) h.platform.put({ id: threatId(n), name: `Member ${n}`, severity: "low" });
  await h.settle();
  await h.settle();
  const issue = gh(h).parents(REPO)[0];
  if (!issue) throw new Error("no group issue");
  h.github.personSets(REPO, issue.number, "closed", "alice", "completed");
  Object.defineProperty(h, "config", { value: makeConfig() });
  h.restart();
  return { h, number: issue.number };
}

async function expectAbsorbedAndRetired(h: Harness, number: number): Promise<void> {
  // The person's close reached every member as its verdict, under single mode.
  for (const n of [1, 2, 3]) expect(statusOf(h, n)).toBe("solved");
  // Solved members need no issue of their own: the group issue is the only issue, retired.
  expect(h.issues(REPO)).toHaveLength(1);
  const retired = h.issues(REPO)[0];
  expect(retired?.number).toBe(number);
  expect(retired?.state).toBe("closed");
  expect(retired?.stateReason).toBe("not_planned");
  expect(retired?.body).not.toContain("<!-- threatbridge:group=");
  const comments = await h.github.listComments(REPO, number);
  expect(comments.filter((c) => c.body.includes(SAID))).toHaveLength(1);
}

describe("changing grouping, through the engine", () => {
  it("single → off with a person's close not absorbed yet: its verdicts first, then the issue retired with one comment; later cycles write nothing", async () => {
    const { h, number } = await closedThenSwitchedOff();
    await h.settle();
    await expectAbsorbedAndRetired(h, number);
    const verdicts = h.events.filter((e) => e.type === "verdict_sent").map((e) => e.threatId);
    expect(verdicts.sort()).toEqual([1, 2, 3].map(threatId));
    const writes = h.github.calls;
    await h.settle();
    expect(h.github.calls - writes).toBeLessThanOrEqual(1);
  });

  it("a crash at every call of either side, before or after it lands: every verdict still sent, one retiring comment, no issue for a solved member", async () => {
    const clean = await closedThenSwitchedOff();
    const before = { github: clean.h.github.calls, platform: clean.h.platform.calls };
    await clean.h.cycle();
    const points = {
      github: clean.h.github.calls - before.github,
      platform: clean.h.platform.calls - before.platform,
    };
    expect(points.github).toBeGreaterThan(0);
    for (const [side, call] of (["github", "platform"] as const).flatMap((side) =>
      Array.from({ length: points[side] }, (_, i) => [side, i + 1] as const),
    )) {
      for (const after of [false, true]) {
        const { h, number } = await closedThenSwitchedOff();
        h.crashAt(side, call, after);
        await h.cycle().catch(() => undefined);
        h.restart();
        await h.settle();
        await h.settle();
        await expectAbsorbedAndRetired(h, number);
      }
    }
  });

  it("single → off with a person's reopen not absorbed yet: the members that close closed get unsolved, then issues of their own, which the retired issue names", async () => {
    const { h, number } = await closedThenSwitchedOff();
    // Back to single mode before any cycle: the close is absorbed as usual. Then a person reopens
    // the issue, and the operator switches grouping off before the next cycle.
    Object.defineProperty(h, "config", { value: makeConfig({ grouping: { by: "asset", mode: "single" } }) });
    h.restart();
    await h.settle();
    for (const n of [1, 2, 3]) expect(statusOf(h, n)).toBe("solved");
    h.github.personSets(REPO, number, "open", "bob");
    Object.defineProperty(h, "config", { value: makeConfig() });
    h.restart();
    await h.settle();
    await h.settle();
    for (const n of [1, 2, 3]) expect(statusOf(h, n)).toBe("unsolved");
    const own = h.issues(REPO).filter((i) => i.threatId !== null);
    expect(own.map((i) => i.state)).toEqual(["open", "open", "open"]);
    const retired = h.issues(REPO).find((i) => i.number === number);
    expect(retired?.state).toBe("closed");
    expect(retired?.stateReason).toBe("not_planned");
    const said = (await h.github.listComments(REPO, number)).filter((c) => c.body.includes(SAID));
    expect(said).toHaveLength(1);
    for (const i of own) expect(said[0]?.body).toContain(`${REPO}#${i.number}`);
  });

  it("single → parent, a crash or a failed call at every call of either side: the old issue retired once, then one parent with its marker, never the old issue taken over as the parent", async () => {
    async function switchedToParent(): Promise<{ h: Harness; number: number }> {
      const h = new Harness(
        makeConfig({ grouping: { by: "asset", mode: "single" } }),
        new FakeWorkflowGitHub(),
      );
      for (const n of [1, 2, 3]) h.platform.put({ id: threatId(n), name: `Member ${n}`, severity: "low" });
      await h.settle();
      await h.settle();
      const issue = gh(h).parents(REPO)[0];
      if (!issue) throw new Error("no group issue");
      Object.defineProperty(h, "config", {
        value: makeConfig({ grouping: { by: "asset", mode: "parent" } }),
      });
      h.restart();
      return { h, number: issue.number };
    }
    const clean = await switchedToParent();
    const before = { github: clean.h.github.calls, platform: clean.h.platform.calls };
    await clean.h.cycle();
    const points = {
      github: clean.h.github.calls - before.github,
      platform: clean.h.platform.calls - before.platform,
    };
    for (const [side, call] of (["github", "platform"] as const).flatMap((side) =>
      Array.from({ length: points[side] }, (_, i) => [side, i + 1] as const),
    )) {
      for (const [after, crash] of [
        [false, true],
        [true, true],
        [false, false],
        [true, false],
      ] as const) {
        const { h, number } = await switchedToParent();
        if (crash) h.crashAt(side, call, after);
        // Without a crash the call fails once (a lost answer, a 5xx) and the cycle goes on.
        else if (side === "github") h.github.failAt = { call: h.github.calls + call, after };
        else h.platform.failAt = { call: h.platform.calls + call, after };
        await h.cycle().catch(() => undefined);
        // No group marker on two open issues, also between cycles.
        const markers = h
          .issues(REPO)
          .filter((i) => i.state === "open")
          .flatMap((i) => /<!-- threatbridge:group=[^ ]+ -->/.exec(i.body ?? "") ?? []);
        expect(new Set(markers).size).toBe(markers.length);
        if (crash) h.restart();
        await h.settle();
        await h.settle();
        const own = h.issues(REPO).filter((i) => i.threatId !== null);
        expect(own.map((i) => i.threatId).sort()).toEqual([1, 2, 3].map(threatId));
        expect(own.every((i) => i.state === "open")).toBe(true);
        const old = h.issues(REPO).find((i) => i.number === number);
        expect(old?.state).toBe("closed");
        expect(old?.body).not.toContain("<!-- threatbridge:group=");
        const said = (await h.github.listComments(REPO, number)).filter((c) => c.body.includes(SAID));
        expect(said).toHaveLength(1);
        const parents = gh(h).parents(REPO);
        expect(parents).toHaveLength(1);
        expect(parents[0]?.number).not.toBe(number);
        expect(parents[0]?.state).toBe("open");
      }
    }
  });

  it("a cycle's start reads no stored group while the config's setting is the one they were last seen under and none is superseded (state groupingSeen); a changed setting reads them", async () => {
    // A group with no parent yet (fewer members than min_members): the fake lists every issue
    // at each poll, and a listed group issue is read as its own (a person's change to it).
    const grouping = { by: "asset", mode: "parent", min_members: 5 } as const;
    const h = new Harness(makeConfig({ grouping }), new FakeWorkflowGitHub());
    for (const n of [1, 2, 3]) h.platform.put({ id: threatId(n), name: `Member ${n}`, severity: "low" });
    await h.settle();
    await h.settle();
    expect(Object.keys(h.ctx.state.groups ?? {})).toHaveLength(1);
    expect(h.ctx.state.groupingSeen).toEqual({ setting: "asset/parent", superseded: false });
    // A new process, its groups counted as they are read.
    let reads = 0;
    h.freezeState = false;
    h.onLoad = (state) => {
      const { groups, ...others } = state;
      return Object.defineProperty(others, "groups", {
        enumerable: true,
        configurable: true,
        get: () => {
          reads += 1;
          return groups;
        },
      });
    };
    h.restart();
    const commits = h.commits.length;
    await h.cycle();
    expect([reads, h.commits.length - commits]).toEqual([0, 0]);
    // The operator changes the setting: the next start reads every group (this one, without an
    // issue, is dropped: nothing of it to retire).
    Object.defineProperty(h, "config", { value: makeConfig({ grouping: { by: "title", mode: "parent" } }) });
    h.restart();
    await h.cycle();
    expect(reads).toBeGreaterThan(0);
    expect(h.ctx.state.groupingSeen).toEqual({ setting: "title/parent", superseded: false });
    expect(Object.keys(h.ctx.state.groups ?? {}).filter((key) => key.startsWith("group:asset:"))).toEqual([]);
  });

  it("a former member's version read again is stale when it is not newer than its verdict's answer by the instant, whatever the text: an answer in whole seconds (…:09Z) after one with milliseconds (…:09.500Z), or one with an offset (…T01:00:10+01:00 for …T00:00:10Z), plans no issue", async () => {
    const { h } = await closedThenSwitchedOff();
    await h.settle();
    const id = threatId(1);
    const threat = h.platform.threats.get(id);
    const [groupId, group] = Object.entries(h.ctx.state.groups ?? {})[0] ?? [];
    if (!threat || groupId === undefined || group === undefined) throw new Error("no retired group");
    // The verdict's answer kept on the member, as the drain keeps it between the verdict and the
    // member's removal from its old group (a walk from the start in between reads older versions).
    const withVerdict = (verdictAt: string): void =>
      putGroup(h.ctx, groupId, {
        ...group,
        members: {
          [id]: { title: "Member 1", severity: 1, status: "solved", assetId: ASSET, repo: REPO, verdictAt },
        },
      });
    const readAgain = (updatedAt: string): string[] => {
      const older = { ...threat, status: "unsolved", updated_at: updatedAt };
      h.ctx.cache.set(id, { view: toThreatView(older, h.ctx.config.fields.threat), link: githubLink(older) });
      return planFor(h.ctx, id).map((a) => a.kind);
    };
    // Whole seconds after milliseconds: as text "…:09Z" sorts after "…:09.500Z", as instants before.
    withVerdict("2026-01-01T00:00:09.500Z");
    expect(readAgain("2026-01-01T00:00:09Z")).not.toContain("create");
    // An offset: the same instant as the verdict's answer, whose text sorts after it.
    withVerdict("2026-01-01T00:00:10Z");
    expect(readAgain("2026-01-01T01:00:10+01:00")).not.toContain("create");
    // A version newer than the verdict's answer is the threat's own: it gets an issue.
    expect(readAgain("2026-01-01T00:00:11Z")).toContain("create");
  });
});
