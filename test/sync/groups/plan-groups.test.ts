import { describe, expect, it } from "vitest";
import { compileGroupTitle, DEFAULT_GROUP_TITLE } from "../../../src/config/index.js";
import type { GroupParent } from "../../../src/sync/schema.js";
import { planGroup, SUB_ISSUES_MAX, type GroupPlanInput } from "../../../src/sync/groups/plan-groups.js";
import { CHECKLIST_MAX, renderParent, type MemberView } from "../../../src/sync/groups/render-parent.js";

const REPO = "acme/sec";
const title = compileGroupTitle(DEFAULT_GROUP_TITLE);

function member(n: number, over: Partial<MemberView> = {}): MemberView {
  return {
    threatId: `t${n}`,
    title: `Threat ${n}`,
    severity: 2,
    repo: REPO,
    number: n,
    id: 1000 + n,
    state: "open",
    due: null,
    ...over,
  };
}

function input(
  members: MemberView[],
  parent?: GroupParent,
  over: Partial<GroupPlanInput> = {},
): GroupPlanInput {
  return {
    groupId: "group:asset:a1",
    repo: REPO,
    by: "asset",
    key: "a1",
    members,
    parent,
    minMembers: 2,
    managedLabel: "threatbridge",
    title,
    subIssues: true,
    ...over,
  };
}

function parentFor(members: MemberView[], over: Partial<GroupParent> = {}): GroupParent {
  const rendered = renderParent({ by: "asset", key: "a1" }, members, { managedLabel: "threatbridge", title });
  return { number: 50, id: 9050, url: "u", state: "open", hash: rendered.hash, attached: [], ...over };
}

describe("a group's parent (contract, Groups: parent mode)", () => {
  it("gets its parent from min_members open members, not before", () => {
    expect(planGroup(input([member(1)]))).toEqual([]);
    expect(planGroup(input([member(1), member(2, { state: "closed" })]))).toEqual([]);
    const [create, ...rest] = planGroup(input([member(1), member(2)]));
    expect(rest).toEqual([]);
    expect(create).toMatchObject({
      kind: "group_create",
      repo: REPO,
      title: "a1: 2 open of 2",
      labels: ["threatbridge", "threatbridge:group"],
    });
    expect(planGroup(input([member(1)], undefined, { minMembers: 1 }))[0]?.kind).toBe("group_create");
  });

  it("renders the key, the highest open severity, the earliest due date and a checklist, with the marker", () => {
    const members = [
      member(3, { severity: 4, state: "closed", due: "2026-01-01" }),
      member(1, { severity: 1, due: "2026-03-01" }),
      member(2, { severity: 3, due: "2026-02-01" }),
    ];
    const { body } = renderParent({ by: "asset", key: "a1" }, members, {
      managedLabel: "threatbridge",
      title,
    });
    expect(body).toContain("Highest open severity: high");
    expect(body).toContain("Earliest due date: 2026-01-01");
    expect(body).toContain("Members: 2 open of 3");
    expect(body.split("\n").filter((l) => l.startsWith("- ["))).toEqual([
      `- [ ] ${REPO}#2 Threat 2`,
      `- [ ] ${REPO}#1 Threat 1`,
      `- [x] ${REPO}#3 Threat 3`,
    ]);
    expect(body).toContain("<!-- threatbridge:group=asset:a1 -->");
    expect(
      renderParent({ by: "asset", key: "a1" }, [member(1)], { managedLabel: "t", title }).body,
    ).not.toContain("due date");
  });

  it("an asset group reads by its asset's name: `group.name` in the title template, and the body's heading names both", () => {
    const byName = compileGroupTitle("{{ group.name }}: {{ group.open }} open");
    const named = renderParent({ by: "asset", key: "a1", name: "web-prod-01 @ops" }, [member(1)], {
      managedLabel: "threatbridge",
      title: byName,
    });
    expect(named.title).toMatch(/^web-prod-01 @\u200bops: 1 open$/);
    expect(named.body).toContain("Threats grouped by asset: **web-prod-01 @\u200bops (a1)**");
    // No name known: `group.name` is the key, and the heading is the key alone.
    const unnamed = renderParent({ by: "asset", key: "a1" }, [member(1)], {
      managedLabel: "threatbridge",
      title: byName,
    });
    expect(unnamed.title).toBe("a1: 1 open");
    expect(unnamed.body).toContain("Threats grouped by asset: **a1**");
  });

  it("keeps platform text inert: mentions, references and HTML in a title or key do nothing", () => {
    const members = [member(1, { title: "@admin see #12 <img src=x onerror=alert(1)>" })];
    const { body, title: t } = renderParent({ by: "title", key: "@team -->" }, members, {
      managedLabel: "threatbridge",
      title,
    });
    expect(body).not.toContain("@admin");
    expect(body).not.toContain("<img");
    expect(body).not.toMatch(/[^\w/]#12\b/);
    expect(t).not.toContain("@team");
    // The key cannot end the marker early.
    expect(body.match(/-->/g)?.length).toBe(1);
  });

  it("lists at most 100 members, then says how many more", () => {
    const members = Array.from({ length: CHECKLIST_MAX + 7 }, (_, i) => member(i + 1));
    const { body } = renderParent({ by: "asset", key: "a1" }, members, { managedLabel: "t", title });
    expect(body.split("\n").filter((l) => l.startsWith("- ["))).toHaveLength(CHECKLIST_MAX);
    expect(body).toContain("- and 7 more");
  });

  it("rewrites the parent only when its checklist changed: one update however many members joined", () => {
    const before = [member(1), member(2)];
    expect(planGroup(input(before, parentFor(before, { attached: ["t1", "t2"] })))).toEqual([]);
    const after = [...before, member(3), member(4), member(5)];
    const actions = planGroup(input(after, parentFor(before, { attached: ["t1", "t2"] })));
    expect(actions.filter((a) => a.kind === "group_update")).toHaveLength(1);
    expect(
      actions.filter((a) => a.kind === "attach").map((a) => ("threatId" in a ? a.threatId : "")),
    ).toEqual(["t3", "t4", "t5"]);
  });

  it("closes the parent when every member is closed, reopens it when one reopens", () => {
    const closed = [member(1, { state: "closed" }), member(2, { state: "closed" })];
    const attached = { attached: ["t1", "t2"] };
    expect(planGroup(input(closed, parentFor(closed, attached)))).toEqual([
      { kind: "group_state", groupId: "group:asset:a1", repo: REPO, number: 50, target: "closed" },
    ]);
    const reopened = [member(1), member(2, { state: "closed" })];
    expect(planGroup(input(reopened, parentFor(reopened, { ...attached, state: "closed" })))).toEqual([
      { kind: "group_state", groupId: "group:asset:a1", repo: REPO, number: 50, target: "open" },
    ]);
  });

  it("a person's close or reopen of the parent is not undone: only a change of the members' target is written", () => {
    // The connector last made it follow "open"; a person closed it since: members unchanged, nothing planned.
    const open = [member(1), member(2)];
    expect(planGroup(input(open, parentFor(open, { attached: ["t1", "t2"], state: "open" })))).toEqual([]);
  });

  it("attaches by issue id, reading the id first where unknown, at most 100, then the checklist only (said once)", () => {
    const members = Array.from({ length: SUB_ISSUES_MAX + 3 }, (_, i) =>
      member(i + 1, { id: i === 0 ? null : 2000 + i }),
    );
    const actions = planGroup(input(members, parentFor(members)));
    expect(actions[0]).toEqual({
      kind: "member_id",
      groupId: "group:asset:a1",
      repo: REPO,
      threatId: "t1",
      number: 1,
    });
    expect(actions.filter((a) => a.kind === "attach" || a.kind === "member_id")).toHaveLength(SUB_ISSUES_MAX);
    expect(actions.at(-1)).toMatchObject({ kind: "group_full", beyond: 3 });
    expect(planGroup(input(members, parentFor(members, { checklistOnly: "full" })))).toEqual([]);
  });

  it("where sub-issues are unavailable, the checklist alone: nothing attached", () => {
    const members = [member(1), member(2)];
    expect(planGroup(input(members, parentFor(members, { checklistOnly: "unavailable" })))).toEqual([]);
    expect(planGroup(input(members, parentFor(members), { subIssues: false }))).toEqual([]);
  });

  it("a parent GitHub refused for good is left alone, and never replaced by a second one", () => {
    const members = [member(1), member(2), member(3)];
    expect(planGroup(input(members, parentFor([member(1)], { refused: "deleted" })))).toEqual([]);
  });

  it("changing grouping: a member under a parent of the old setting is moved to its new parent (replace_parent), any other attached as before", () => {
    const members = [member(1), member(2)];
    const attaches = planGroup(
      input(members, parentFor(members), { underOldParent: new Set(["t1"]) }),
    ).filter((a) => a.kind === "attach");
    expect(attaches.map((a) => [a.threatId, "replaceParent" in a ? a.replaceParent : undefined])).toEqual([
      ["t1", true],
      ["t2", undefined],
    ]);
  });
});
