import type {
  AttachResult,
  DetachResult,
  GitHubWorkflow,
  IssueSnapshot,
  SubIssueList,
} from "../../src/github/index.js";
import { GROUP_LABEL } from "../../src/shared/index.js";
import { FakeGitHub } from "./fake-github.js";

/**
 * The in-memory GitHub with sub-issues (GitHub's rules: a child by its issue id, one parent per
 * child, at most 100 per parent), counted and failed like every other call of the fake, so a
 * crash can fall on an attach too. `subIssues: false` answers as a GitHub without them.
 */
export class FakeWorkflowGitHub extends FakeGitHub implements GitHubWorkflow {
  /** Parent `repo#number` → child issue ids, in the order attached. */
  readonly subIssues = new Map<string, number[]>();
  constructor(readonly hasSubIssues = true) {
    super();
  }

  private parentKey(repo: string, number: number): string {
    return `${repo}#${number}`;
  }

  addSubIssue(repo: string, parentNumber: number, childId: number): Promise<AttachResult> {
    return this.call((): AttachResult => {
      this.points += 1;
      if (!this.hasSubIssues) return { available: false, status: 404, message: "Not Found" };
      if (!this.issues(repo).some((i) => i.number === parentNumber))
        return { available: false, status: 404, message: "Not Found" };
      const children = this.subIssues.get(this.parentKey(repo, parentNumber)) ?? [];
      if (children.includes(childId))
        return { available: true, outcome: "already_attached", message: "duplicate sub-issues" };
      if ([...this.subIssues.values()].some((c) => c.includes(childId)))
        return { available: true, outcome: "has_other_parent", message: "may only have one parent" };
      if (children.length >= 100)
        return { available: true, outcome: "parent_full", message: "more than 100 sub-issues" };
      this.subIssues.set(this.parentKey(repo, parentNumber), [...children, childId]);
      return { available: true, outcome: "attached" };
    }, true);
  }

  removeSubIssue(): Promise<DetachResult> {
    return Promise.reject(new Error("the engine does not detach sub-issues"));
  }

  listSubIssues(repo: string, parentNumber: number): Promise<SubIssueList> {
    return this.call((): SubIssueList => {
      const ids = this.subIssues.get(this.parentKey(repo, parentNumber)) ?? [];
      const issues = this.issues(repo).filter((i) => i.id !== null && ids.includes(i.id));
      return { available: true, issues };
    });
  }

  getParent(): Promise<IssueSnapshot | null> {
    return Promise.resolve(null);
  }

  findGroupParent(repo: string, marker: string): Promise<IssueSnapshot | null> {
    return this.call(() => {
      this.points += 1;
      const found = this.issues(repo).find((i) => i.body.includes(marker));
      return found ? { ...found, labels: [...found.labels], assignees: [...found.assignees] } : null;
    });
  }

  /** Every issue labelled as a group's, open or closed (one paged list: one call here). */
  listGroupIssues(repo: string): Promise<IssueSnapshot[]> {
    return this.call(() => {
      this.points += 1;
      return this.issues(repo)
        .filter((i) => i.labels.includes(GROUP_LABEL))
        .map((i) => ({ ...i, labels: [...i.labels], assignees: [...i.assignees] }));
    });
  }

  /** Parents: the issues that carry a group marker. */
  parents(repo: string): IssueSnapshot[] {
    return this.issues(repo).filter((i) => i.body.includes("<!-- threatbridge:group="));
  }

  listMilestones(): never {
    throw new Error("no milestones in this fake");
  }
  createMilestone(): never {
    throw new Error("no milestones in this fake");
  }
  updateMilestone(): never {
    throw new Error("no milestones in this fake");
  }
  milestoneNumber(): never {
    throw new Error("no milestones in this fake");
  }
  hasMilestone(): never {
    throw new Error("no milestones in this fake");
  }
}
