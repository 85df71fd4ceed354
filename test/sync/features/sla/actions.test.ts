import { describe, expect, it } from "vitest";
import type { GitHubWorkflow, Milestone } from "../../../../src/github/index.js";
import type { ThreatRecord } from "../../../../src/sync/schema.js";
import { MilestoneBook } from "../../../../src/github/milestone-book.js";
import { sla } from "../../../../src/sync/features/sla/index.js";
import type { SlaBreach, SlaMilestone } from "../../../../src/sync/features/sla/plan.js";
import { REPO } from "../../harness.js";
import { featured, slaOf } from "../../feature-fields.js";

/** Contract, "Workflow" → "SLA": what the breach label's and the milestone's answers mean. */

const ID = "00000000-0000-4000-8000-000000000001";
const issue = { repo: REPO, number: 7, url: "u", state: "open" as const, hash: "h" };
const before: ThreatRecord = featured({
  status: "unsolved",
  severity: 4,
  assetId: null,
  updatedAt: "u",
  issue,
  sla: { since: "2026-11-01T00:00:00.000Z", due: "2026-11-08T00:00:00.000Z" },
});

describe("the SLA's action modules settle as plain data", () => {
  it("sla_breach: the record remembers the label was added (never added again for this due date); one audit event", () => {
    const action: SlaBreach = {
      kind: "feature",
      feature: "sla",
      step: "breach",
      threatId: ID,
      repo: REPO,
      number: 7,
      label: "sla:breached",
    };
    const settled = sla.actions!.modules["breach"]!.settle(action, null);
    expect(slaOf(settled.record?.(before))?.breach).toBe("added");
    expect(settled.events).toEqual([
      { type: "sla_breach_labeled", threatId: ID, issue: { repo: REPO, number: 7 } },
    ]);
    expect(settled.commit).toBe("checkpoint");
  });

  it("sla_milestone: set (and made) → both told; a repository without milestones → recorded, nothing told, not asked again", () => {
    const action: SlaMilestone = {
      kind: "feature",
      feature: "sla",
      step: "milestone",
      threatId: ID,
      repo: REPO,
      number: 7,
      title: "SLA 2026-11-08",
      dueOn: "2026-11-08",
    };
    const snapshot = {
      repo: REPO,
      number: 7,
      id: 1,
      url: "u",
      state: "open" as const,
      stateReason: null,
      title: "T",
      body: "",
      labels: [],
      assignees: [],
      updatedAt: "2026-11-01T00:00:00Z",
      threatId: ID,
    };
    const set = sla.actions!.modules["milestone"]!.settle(action, { issue: snapshot, created: true });
    expect(set.events.map((e) => e.type)).toEqual(["milestone_created", "milestone_set"]);
    expect(slaOf(set.record?.(before))?.milestone).toBe("SLA 2026-11-08");
    const none = sla.actions!.modules["milestone"]!.settle(action, { issue: null, created: false });
    expect(none.events).toEqual([]);
    expect(slaOf(none.record?.(before))?.milestone).toBe("SLA 2026-11-08");
  });
});

/** A stateful in-memory milestones API of one repository (or none: `available: false`). */
function fakeWorkflow(available: boolean): { workflow: GitHubWorkflow; calls: string[] } {
  const calls: string[] = [];
  const list: Milestone[] = [];
  const off = { available: false as const, status: 404, message: "Not Found" };
  const unexpected = (): never => {
    throw new Error("unexpected call");
  };
  const workflow: GitHubWorkflow = {
    addSubIssue: unexpected,
    removeSubIssue: unexpected,
    listSubIssues: unexpected,
    getParent: unexpected,
    findGroupParent: unexpected,
    listGroupIssues: unexpected,
    updateMilestone: unexpected,
    milestoneNumber: unexpected,
    hasMilestone: unexpected,
    listMilestones: (repo) => {
      calls.push(`list ${repo}`);
      return Promise.resolve(available ? { available: true, milestones: [...list] } : off);
    },
    createMilestone: (repo, input) => {
      calls.push(`create ${repo} ${input.title}`);
      if (!available) return Promise.resolve(off);
      const milestone: Milestone = {
        number: list.length + 1,
        title: input.title,
        state: "open",
        dueOn: input.dueOn ?? null,
        openIssues: 0,
        closedIssues: 0,
      };
      list.push(milestone);
      return Promise.resolve({ available: true, milestone, existed: false });
    },
  };
  return { workflow, calls };
}

describe("MilestoneBook: milestones listed once per repository, made on demand", () => {
  it("lists once, makes a missing milestone once, then answers from what it knows", async () => {
    const { workflow, calls } = fakeWorkflow(true);
    const book = new MilestoneBook(() => {
      throw new Error("not unavailable");
    });
    expect(await book.numberFor(workflow, REPO, "SLA 2026-12-06", "2026-12-06")).toEqual({
      number: 1,
      created: true,
    });
    expect(await book.numberFor(workflow, REPO, "SLA 2026-12-06", "2026-12-06")).toEqual({
      number: 1,
      created: false,
    });
    expect(await book.numberFor(workflow, REPO, "SLA 2026-12-13", "2026-12-13")).toEqual({
      number: 2,
      created: true,
    });
    expect(calls).toEqual([`list ${REPO}`, `create ${REPO} SLA 2026-12-06`, `create ${REPO} SLA 2026-12-13`]);
  });

  it("a repository without milestones (404): said once, then no call at all", async () => {
    const { workflow, calls } = fakeWorkflow(false);
    const said: string[] = [];
    const book = new MilestoneBook((repo, status) => said.push(`${repo} ${String(status)}`));
    expect(await book.numberFor(workflow, REPO, "SLA 2026-12-06", "2026-12-06")).toBeNull();
    expect(await book.numberFor(workflow, REPO, "SLA 2026-12-13", "2026-12-13")).toBeNull();
    expect(said).toEqual([`${REPO} 404`]);
    expect(calls).toEqual([`list ${REPO}`]);
  });
});
