import { describe, expect, it } from "vitest";
import { compileGroupTitle, DEFAULT_GROUP_TITLE } from "../../../src/config/index.js";
import type { GroupIssue } from "../../../src/sync/schema.js";
import { gone, present } from "../../../src/sync/plan/known.js";
import { plan, type PlanInput } from "../../../src/sync/plan/plan.js";
import { policyFromConfig } from "../../../src/sync/plan/policy.js";
import {
  personTargets,
  planSingle,
  renderSingle,
  type SingleMemberView,
  type SinglePlanInput,
} from "../../../src/sync/groups/plan-single.js";
import { makeConfig, REPO } from "../harness.js";

const policy = policyFromConfig(makeConfig());
const title = compileGroupTitle(DEFAULT_GROUP_TITLE);

function member(n: number, status = "unsolved"): SingleMemberView {
  return { threatId: `t${n}`, title: `Threat ${n}`, severity: 3, asset: "shop.example.com", status };
}

function input(members: SingleMemberView[], issue?: GroupIssue): SinglePlanInput {
  return {
    groupId: "group:asset:a1",
    repo: REPO,
    by: "asset",
    key: "a1",
    members,
    issue,
    managedLabel: "threatbridge",
    title,
    policy,
  };
}

function issueFor(members: SingleMemberView[], over: Partial<GroupIssue> = {}): GroupIssue {
  return {
    number: 9,
    url: `https://github.test/${REPO}/issues/9`,
    state: "open",
    hash: renderSingle(input(members)).hash,
    ...over,
  };
}

describe("single mode's group issue (contract, Groups: single mode)", () => {
  it("is made once a member is open; its body is the checklist of severity, asset and title per member", () => {
    expect(planSingle(input([member(1, "solved")]))).toEqual([]);
    const [create] = planSingle(input([member(1), member(2, "solved")]));
    expect(create?.kind).toBe("single_create");
    const body = create && "body" in create ? create.body : "";
    expect(body).toContain("- [ ] **high** shop.example.com — Threat 1");
    expect(body).toContain("- [x] **high** shop.example.com — Threat 2");
    expect(body).toContain("<!-- threatbridge:group=asset:a1 -->");
  });

  it("closes when no member is open on the platform and reopens when one is", () => {
    const closed = [member(1, "solved"), member(2, "pending")];
    expect(planSingle(input(closed, issueFor(closed)))).toEqual([
      { kind: "single_state", groupId: "group:asset:a1", repo: REPO, number: 9, target: "closed" },
    ]);
    const open = [member(1), member(2, "solved")];
    expect(planSingle(input(open, issueFor(open, { state: "closed" })))).toEqual([
      { kind: "single_state", groupId: "group:asset:a1", repo: REPO, number: 9, target: "open" },
    ]);
  });

  it("a person's close sends its verdict to each open member, one PATCH each, then stands", () => {
    const members = [member(1), member(2), member(3, "solved")];
    const targets = personTargets("closed", members, undefined);
    expect(targets).toEqual(["t1", "t2"]);
    const person = {
      event: "closed" as const,
      reason: "not_planned",
      login: "alice",
      seenAt: "x",
      targets,
      pending: targets,
    };
    const actions = planSingle(input(members, issueFor(members, { person })));
    expect(actions.map((a) => (a.kind === "single_verdict" ? `${a.threatId}:${a.status}` : a.kind))).toEqual([
      "t1:solved",
      "t2:solved",
      "single_person_done",
    ]);
    // While its verdicts go out, the issue is left as the person left it (no state write).
    expect(actions.some((a) => a.kind === "single_state")).toBe(false);
  });

  it("a person's reopen sends the reopen verdict to the members that close closed, and to no other", () => {
    const members = [member(1, "solved"), member(2, "solved"), member(3, "solved")];
    expect(personTargets("reopened", members, ["t1", "t2", "t9"])).toEqual(["t1", "t2"]);
    const person = {
      event: "reopened" as const,
      reason: null,
      login: "alice",
      seenAt: "x",
      targets: ["t1", "t2"],
      pending: ["t1", "t2"],
    };
    const actions = planSingle(input(members, issueFor(members, { state: "closed", person })));
    expect(
      actions.filter((a) => a.kind === "single_verdict").map((a) => ("status" in a ? a.status : null)),
    ).toEqual(["unsolved", "unsolved"]);
  });
});

describe("the planner's single-mode clause", () => {
  const base: PlanInput = {
    threatId: "t1",
    threat: present({ status: "unsolved" }),
    link: null,
    record: { status: "unsolved", severity: 3, assetId: "a1", updatedAt: "2026-01-01T00:00:00.000Z" },
    person: undefined,
    eligible: true,
    route: { repo: REPO, labels: [], assignees: [] },
    rendered: { hash: "h", issue: { title: "T", body: "B", labels: [] } },
    policy,
  };
  const groupIssue = { repo: REPO, number: 9, url: `https://github.test/${REPO}/issues/9` };

  it("a member gets no issue of its own: nothing until its group's issue exists, then its link names that issue", () => {
    expect(plan(base).map((a) => a.kind)).toEqual(["create"]);
    expect(plan({ ...base, single: { groupId: "g", issue: null } })).toEqual([]);
    expect(plan({ ...base, single: { groupId: "g", issue: groupIssue } })).toEqual([
      { kind: "link", threatId: "t1", ...groupIssue, externalId: `${REPO}#9` },
    ]);
    expect(
      plan({
        ...base,
        link: { externalId: `${REPO}#9`, url: groupIssue.url },
        single: { groupId: "g", issue: groupIssue },
      }),
    ).toEqual([]);
  });

  it("never adopts its group's issue as its own, and plans nothing for a threat gone from the API", () => {
    const shown = { externalId: `${REPO}#9`, url: groupIssue.url };
    expect(plan({ ...base, link: shown, single: { groupId: "g", issue: groupIssue } })).toEqual([]);
    expect(plan({ ...base, threat: gone, single: { groupId: "g", issue: groupIssue } })).toEqual([]);
  });
});
