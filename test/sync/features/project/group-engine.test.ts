import { describe, expect, it } from "vitest";
import { Harness, makeConfig, REPO, threatId } from "../../harness.js";
import { FakeWorkflowGitHub } from "../../fake-workflow.js";
import { FakeProjects, SEVERITY_OPTIONS } from "./fake-projects.js";
import type { Config } from "../../../../src/config/index.js";
import { decodeGroupSlice } from "../../../../src/sync/features/project/slice.js";
import { sliceOf } from "../../../../src/sync/features/types.js";

/**
 * Contract, "The conversation back" (projects): "every issue the connector creates (threat,
 * recurrence, parent or group issue) is added to the project … at most one item per issue,
 * whatever crashes". A group's issues are its subject's (records/subject.ts): their items are
 * planned by the group (features' `planGroup`) and recorded on the group's record.
 */

const GITHUB = { token: "t", repository: REPO, api_url: "http://127.0.0.1:2" };
// The default asset of the fake platform's threats: every threat below is in its group.
const ASSET_ID = "00000000-0000-4000-8000-00000000a001";
const GROUP_ID = `group:asset:${ASSET_ID}`;
const PROJECT = {
  owner: "acme",
  number: 7,
  // Severity reads a threat (unset on a group's issue); Group reads the group (unset on a threat's).
  fields: {
    Severity: "{{ threat.severity }}",
    Group: "{{ group.by }}: {{ group.key }}",
    Source: "threatbridge",
  },
};
const FIELDS = [
  { id: 1, name: "Severity", type: "single_select" as const, options: SEVERITY_OPTIONS },
  { id: 4, name: "Group", type: "text" as const, options: [] },
  { id: 5, name: "Source", type: "text" as const, options: [] },
];

function config(mode: "parent" | "single"): Config {
  return makeConfig({ github: { ...GITHUB, project: PROJECT }, grouping: { by: "asset", mode } });
}

function harness(mode: "parent" | "single" = "parent"): {
  h: Harness;
  p: FakeProjects;
  gh: FakeWorkflowGitHub;
} {
  const p = new FakeProjects(FIELDS);
  const gh = new FakeWorkflowGitHub();
  return { h: new Harness(config(mode), gh, p), p, gh };
}

/** Two threats of one asset: a group, its parent (parent mode) or its one issue (single mode). */
async function twoMembers(h: Harness): Promise<void> {
  h.platform.put({ id: threatId(1), name: "First", severity: "high" });
  h.platform.put({ id: threatId(2), name: "Second", severity: "low" });
  await h.settle();
  await h.settle();
}

function groupIssueId(gh: FakeWorkflowGitHub): number {
  const [issue, ...more] = gh.parents(REPO);
  expect(more).toEqual([]);
  if (!issue?.id) throw new Error("no group issue");
  return issue.id;
}

describe("project items of groups' issues, through the engine", () => {
  it("parent mode: the parent joins the project once, with the group's fields only; the threats' issues join too", async () => {
    const { h, p, gh } = harness();
    await twoMembers(h);
    const parentId = groupIssueId(gh);
    const [item, ...more] = p.itemOf(parentId);
    expect(more).toEqual([]);
    // The group's scope renders Group; Severity needs a threat and is left unset on the parent.
    expect(item?.values.get(4)).toBe(`asset: ${ASSET_ID}`);
    expect(item?.values.get(5)).toBe("threatbridge");
    expect(item?.values.has(1)).toBe(false);
    // Each member's own issue has its item, with Severity and without Group.
    for (const n of [1, 2]) {
      const issue = h.issueFor(threatId(n))[0];
      const [own, ...others] = p.itemOf(issue?.id ?? -1);
      expect(others).toEqual([]);
      expect(own?.values.get(1)).toBe(n === 1 ? "opt-high" : "opt-low");
      expect(own?.values.has(4)).toBe(false);
    }
    expect(p.requests.add).toBe(3);
    // The item is recorded on the group's record, keyed by its issue, and survives a restart (the
    // state read back from the store).
    h.restart();
    const parent = gh.parents(REPO)[0];
    const items = decodeGroupSlice(sliceOf(h.ctx.state.groups?.[GROUP_ID], "project"));
    expect(items[`${REPO}#${parent?.number}`]?.i).toBe(item?.id);
  });

  it("parent mode: the echo and an idle cycle cost 0 project requests, in this process and the next", async () => {
    const { h, p, gh } = harness();
    await twoMembers(h);
    expect(p.itemOf(groupIssueId(gh)).length).toBe(1);
    const before = p.total;
    await h.cycle();
    await h.cycle();
    expect(p.total).toBe(before);
    // A new process queues every group once (cycle.ts): each plans nothing, so reads nothing.
    h.restart();
    await h.cycle();
    await h.cycle();
    expect(p.total).toBe(before);
  });

  it("parent mode: a crash between the parent's add and its answer adds no second item (found by listing)", async () => {
    // A run without a crash says which call of the project side is the parent's add.
    const reference = harness();
    await twoMembers(reference.h);
    const parentAdd = reference.p.adds.find((a) => a.issueId === groupIssueId(reference.gh));
    if (!parentAdd) throw new Error("the parent was not added");
    const { h, p, gh } = harness();
    h.crashAt("conversation", parentAdd.call, true);
    h.platform.put({ id: threatId(1), name: "First", severity: "high" });
    h.platform.put({ id: threatId(2), name: "Second", severity: "low" });
    await h.settle().catch(() => undefined);
    expect(h.dead).toBe(true);
    // The add landed and its answer was lost with the process: its intent (the group's) is left.
    const disk = JSON.parse(h.disk ?? "{}") as {
      intents?: Record<string, { kind: string; subject?: string }>;
    };
    const intents = Object.values(disk.intents ?? {});
    expect(intents.some((i) => i.kind === "feature" && i.subject === "group")).toBe(true);
    h.restart();
    await h.settle();
    await h.settle();
    expect(p.itemOf(groupIssueId(gh)).length).toBe(1);
    expect(p.requests.add).toBe(3);
    expect(p.requests.find).toBeGreaterThanOrEqual(1);
    expect(Object.keys(h.ctx.state.intents)).toEqual([]);
    // Its fields are set after the recovery, once.
    expect(p.itemOf(groupIssueId(gh))[0]?.values.get(4)).toBe(`asset: ${ASSET_ID}`);
  });

  it("a crash at any call of the project side, landed or not: every issue, threats' and parent's, ends with exactly one item", async () => {
    const reference = harness();
    await twoMembers(reference.h);
    const calls = reference.p.calls;
    expect(calls).toBeLessThan(30);
    for (let call = 1; call <= calls; call += 1) {
      for (const after of [false, true]) {
        const { h, p, gh } = harness();
        h.crashAt("conversation", call, after);
        h.platform.put({ id: threatId(1), name: "First", severity: "high" });
        h.platform.put({ id: threatId(2), name: "Second", severity: "low" });
        await h.settle().catch(() => undefined);
        h.restart();
        await h.settle();
        await h.settle();
        const ids = [groupIssueId(gh), ...[1, 2].map((n) => h.issueFor(threatId(n))[0]?.id ?? -1)];
        for (const id of ids) expect(p.itemOf(id).length, `crash at call ${call}, after: ${after}`).toBe(1);
      }
    }
  });

  it("single mode: the group's one issue joins the project once, with the group's fields; idle costs 0", async () => {
    const { h, p, gh } = harness("single");
    await twoMembers(h);
    // The members have no issue of their own: the group's is the only one, and the only item.
    expect(h.issues(REPO).filter((i) => i.threatId !== null)).toEqual([]);
    const issueId = groupIssueId(gh);
    expect(p.items.map((i) => i.issueId)).toEqual([issueId]);
    expect(p.itemOf(issueId)[0]?.values.get(4)).toBe(`asset: ${ASSET_ID}`);
    expect(p.itemOf(issueId)[0]?.values.has(1)).toBe(false);
    const before = p.total;
    await h.cycle();
    h.restart();
    await h.cycle();
    expect(p.total).toBe(before);
  });
});
