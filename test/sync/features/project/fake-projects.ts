import type { GitHubConversation } from "../../../../src/github/index.js";
import type { Project, ProjectFieldChange, ProjectRef } from "../../../../src/github/projects.js";
import type { ProjectField, ProjectFieldValue, ProjectItem } from "../../../../src/github/project-schemas.js";
import { FailingFake } from "../../fake-platform.js";

interface FakeItem {
  id: number;
  issueId: number;
  values: Map<number, ProjectFieldValue>;
}

/**
 * An in-memory project behind GitHubConversation (the projects half), counting every request by
 * what it is, failing one numbered call before or after it lands (FailingFake: the named fault
 * points of the engine tests), answering `{available: false}` when `missing` (a GitHub Enterprise
 * Server without the API). A repeated add answers a SECOND item here, on purpose: GitHub's REST
 * description promises nothing of a repeat, so the engine must never rely on one.
 */
export class FakeProjects extends FailingFake implements GitHubConversation {
  missing = false;
  readonly requests = { getProject: 0, listFields: 0, add: 0, find: 0, getItem: 0, patch: 0, comments: 0 };
  readonly items: FakeItem[] = [];
  /** Every PATCH's changes, in order. */
  readonly patches: Array<{ itemId: number; changes: ProjectFieldChange[] }> = [];
  /** Every add, in order, with the call number it was (a crash test aims at one). */
  readonly adds: Array<{ call: number; issueId: number }> = [];
  private nextItem = 900;

  constructor(
    readonly fields: ProjectField[] = [
      { id: 1, name: "Severity", type: "single_select", options: SEVERITY_OPTIONS },
      { id: 2, name: "Due", type: "date", options: [] },
      { id: 3, name: "Title", type: "text", options: [] },
    ],
    readonly ownerType: "org" | "user" = "org",
  ) {
    super();
  }

  get total(): number {
    const r = this.requests;
    return r.getProject + r.listFields + r.add + r.find + r.getItem + r.patch;
  }

  itemOf(issueId: number): FakeItem[] {
    return this.items.filter((i) => i.issueId === issueId);
  }

  /** A person's edit on the board. */
  boardEdit(issueId: number, fieldId: number, value: ProjectFieldValue): void {
    const item = this.itemOf(issueId)[0];
    if (!item) throw new Error(`no item for issue ${issueId}`);
    item.values.set(fieldId, value);
  }

  private unavailable() {
    return { available: false as const, status: 404, message: "Not Found" };
  }

  getProject(ref: ProjectRef) {
    return this.call(() => {
      this.requests.getProject += 1;
      if (this.missing) return this.unavailable();
      const project: Project = {
        ...ref,
        ownerType: this.ownerType,
        id: 77,
        nodeId: "PVT_77",
        title: "Threats",
      };
      return { available: true as const, project };
    });
  }

  listProjectFields(_project: Project) {
    return this.call(() => {
      this.requests.listFields += 1;
      if (this.missing) return this.unavailable();
      return { available: true as const, fields: this.fields };
    });
  }

  addProjectItem(_project: Project, issueId: number) {
    return this.call(() => {
      this.requests.add += 1;
      this.adds.push({ call: this.calls, issueId });
      if (this.missing) return this.unavailable();
      this.nextItem += 1;
      const item: FakeItem = { id: this.nextItem, issueId, values: new Map() };
      this.items.push(item);
      return { available: true as const, item: this.view(item) };
    }, true);
  }

  findProjectItem(_project: Project, issueId: number) {
    return this.call(() => {
      this.requests.find += 1;
      if (this.missing) return this.unavailable();
      const item = this.itemOf(issueId)[0];
      return { available: true as const, item: item ? this.view(item) : null };
    });
  }

  getProjectItem(_project: Project, itemId: number) {
    return this.call(() => {
      this.requests.getItem += 1;
      const item = this.items.find((i) => i.id === itemId);
      return item ? { available: true as const, item: this.view(item) } : this.unavailable();
    });
  }

  updateProjectItemFields(_project: Project, itemId: number, changes: readonly ProjectFieldChange[]) {
    return this.call(() => {
      this.requests.patch += 1;
      const item = this.items.find((i) => i.id === itemId);
      if (this.missing || !item) return this.unavailable();
      this.patches.push({ itemId, changes: [...changes] });
      for (const c of changes) item.values.set(c.fieldId, c.value);
      return { available: true as const, outcome: "updated" as const };
    }, true);
  }

  listRepoComments() {
    return this.call(() => {
      this.requests.comments += 1;
      return { notModified: true, comments: [] };
    });
  }

  private view(item: FakeItem): ProjectItem {
    return { id: item.id, issueId: item.issueId, values: Object.fromEntries(item.values) };
  }
}

export const SEVERITY_OPTIONS = [
  { id: "opt-crit", name: "Critical" },
  { id: "opt-high", name: "High" },
  { id: "opt-med", name: "Medium" },
  { id: "opt-low", name: "Low" },
];
