import { describe, expect, it } from "vitest";
import type { IssueSnapshot } from "../../../src/github/index.js";
import type { GroupRecord } from "../../../src/sync/schema.js";
import { groupActionModules, moduleOf } from "../../../src/sync/actions/index.js";
import { REPO } from "../harness.js";

/**
 * The group pass's writes as action modules (contract, "Workflow" → "Groups"): each says what
 * GitHub's or the platform's answer means as plain data for the one runner (run/run-action.ts),
 * which applies it to the group's record under its key.
 */

const GROUP = "group:asset:a1";
const MEMBER = "00000000-0000-4000-8000-000000000001";
const group: GroupRecord = {
  by: "asset",
  key: "a1",
  members: { [MEMBER]: { title: "T", severity: 3 } },
  parents: {
    [REPO]: { number: 9, id: 900, url: "u9", state: "open", hash: "h0", attached: [] },
  },
};
const snapshot: IssueSnapshot = {
  repo: REPO,
  number: 9,
  id: 900,
  url: "https://github.test/acme/threats/issues/9",
  state: "open",
  stateReason: null,
  title: "t",
  body: "b",
  labels: [],
  assignees: [],
  updatedAt: "u",
  threatId: null,
};
const attach = {
  kind: "attach" as const,
  groupId: GROUP,
  repo: REPO,
  parentNumber: 9,
  threatId: MEMBER,
  childNumber: 3,
  childId: 300,
};

describe("the group pass's action modules settle as plain data", () => {
  it("every group kind has its module, named by its kind, found by moduleOf as the planner's kinds are", () => {
    for (const [kind, module] of Object.entries(groupActionModules)) expect(module.kind).toBe(kind);
    expect(moduleOf(attach)).toBe(groupActionModules.attach);
  });

  it("a parent's create goes out under a group_create intent keyed by the group, resolved by its marker; its answer becomes the parent", () => {
    const action = {
      kind: "group_create" as const,
      groupId: GROUP,
      repo: REPO,
      title: "t",
      body: "b",
      labels: ["threatbridge", "threatbridge:group"],
      hash: "h1",
    };
    const module = groupActionModules.group_create;
    expect(module.intent?.(action)).toEqual({
      fields: { kind: "group_create", threatId: GROUP, repo: REPO },
      onFailure: "find-group-by-marker",
      settleLazily: false,
    });
    const settled = module.settle(action, snapshot);
    const { [REPO]: _made, ...others } = group.parents;
    const after = settled.group?.change({ ...group, parents: others });
    expect(settled.group?.id).toBe(GROUP);
    expect(after?.parents[REPO]).toEqual({
      number: 9,
      id: 900,
      url: snapshot.url,
      state: "open",
      hash: "h1",
      attached: [],
    });
    expect(settled.events).toEqual([
      { type: "group_written", threatId: GROUP, issue: { repo: REPO, number: 9 }, detail: "create" },
    ]);
  });

  it("attach: attached → recorded with one event; already attached → recorded, no event; no sub-issues → checklist only, said once; a deleted parent → refused", () => {
    const settle = (outcome: Parameters<typeof groupActionModules.attach.settle>[1]) =>
      groupActionModules.attach.settle(attach, outcome);
    const attached = settle({ result: { available: true, outcome: "attached" }, parentGone: false });
    expect(attached.group?.change(group).parents[REPO]?.attached).toEqual([MEMBER]);
    expect(attached.events.map((e) => e.type)).toEqual(["attached"]);
    const again = settle({
      result: { available: true, outcome: "already_attached", message: "duplicate" },
      parentGone: false,
    });
    expect(again.group?.change(group).parents[REPO]?.attached).toEqual([MEMBER]);
    expect(again.events).toEqual([]);
    const none = settle({
      result: { available: false, status: 404, message: "Not Found" },
      parentGone: false,
    });
    expect(none.group?.change(group).parents[REPO]?.checklistOnly).toBe("unavailable");
    expect(none.notice?.once).toBe(`unavailable:${REPO}`);
    const gone = settle({
      result: { available: false, status: 404, message: "Not Found" },
      parentGone: true,
    });
    expect(gone.group?.change(group).parents[REPO]?.refused).toBe("deleted");
    expect(gone.notice).toBeUndefined();
  });

  it("single mode: a member's verdict is sent once and taken off the person's list; the last one makes the person's state the issue's", () => {
    const person = {
      event: "closed" as const,
      reason: "completed",
      login: "alice",
      seenAt: "s",
      targets: [MEMBER],
      pending: [MEMBER],
    };
    const single: GroupRecord = {
      ...group,
      parents: {},
      single: { [REPO]: { number: 9, url: "u9", state: "open", hash: "h", person } },
    };
    const verdict = groupActionModules.single_verdict.settle(
      {
        kind: "single_verdict",
        groupId: GROUP,
        repo: REPO,
        number: 9,
        threatId: MEMBER,
        status: "solved",
        note: "",
        login: "alice",
      },
      null,
    );
    const afterVerdict = verdict.group?.change(single) ?? single;
    expect(afterVerdict.single?.[REPO]?.person?.pending).toEqual([]);
    expect(verdict.events).toEqual([
      {
        type: "verdict_sent",
        threatId: MEMBER,
        issue: { repo: REPO, number: 9 },
        detail: "solved",
        answered: null,
        by: "alice",
      },
    ]);
    const done = groupActionModules.single_person_done.settle(
      { kind: "single_person_done", groupId: GROUP, repo: REPO, number: 9 },
      null,
    );
    const issue = done.group?.change(afterVerdict).single?.[REPO];
    expect(issue?.state).toBe("closed");
    expect(issue?.person).toBeUndefined();
    expect(issue?.closedByPerson).toEqual([MEMBER]);
  });

  it("a single-mode issue made asks the runner to queue its members for their links", () => {
    const settled = groupActionModules.single_create.settle(
      { kind: "single_create", groupId: GROUP, repo: REPO, title: "t", body: "b", labels: [], hash: "h" },
      snapshot,
    );
    expect(settled.linkMembers).toEqual({ groupId: GROUP, repo: REPO });
    expect(settled.group?.change({ ...group, parents: {} }).single?.[REPO]?.number).toBe(9);
  });

  it("only writes to GitHub spend the write budget: a member's id read, a verdict to the platform and the bookkeeping kinds do not", () => {
    const spending = Object.values(groupActionModules)
      .filter((m) => m.spendsGitHubBudget(undefined as never))
      .map((m) => m.kind)
      .sort();
    expect(spending).toEqual([
      "attach",
      "group_create",
      "group_retire",
      "group_retire_note",
      "group_state",
      "group_update",
      "single_create",
      "single_state",
      "single_update",
    ]);
  });
});
