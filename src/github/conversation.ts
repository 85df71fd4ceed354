import type { ReadDeps } from "./issue-reads.js";
import type { WriteDeps, WriteOptions } from "./issue-writes.js";
import * as projects from "./projects.js";
import { listRepoComments, type RepoCommentSnapshot } from "./repo-comments.js";

/** GitHub's side of the conversation back: projects and comments; `{ available: false }` where missing. */
export interface GitHubConversation {
  /** The project, as an organization's, else as a user's (`ownerType` says which answered). */
  getProject(ref: projects.ProjectRef): Promise<projects.ProjectLookup>;
  listProjectFields(project: projects.Project): Promise<projects.ProjectFields>;
  /** Adds the issue (by its `id`); sent once: an unknown outcome is resolved with `findProjectItem`. */
  addProjectItem(
    project: projects.Project,
    issueId: number,
    opts?: WriteOptions,
  ): Promise<projects.ProjectItemAdded>;
  /** The issue's item in the project, or null, by listing the items (a recovery read, not a per-cycle one). */
  findProjectItem(
    project: projects.Project,
    issueId: number,
    fieldIds?: readonly number[],
  ): Promise<projects.ProjectItemFound>;
  /** One item with the values of `fieldIds`; 404 (`available: false`) when a person removed it. */
  getProjectItem(
    project: projects.Project,
    itemId: number,
    fieldIds?: readonly number[],
  ): Promise<projects.ProjectItemFound>;
  /** All the changed fields of one item in one PATCH; GitHub's 422 is `refused`. */
  updateProjectItemFields(
    project: projects.Project,
    itemId: number,
    changes: readonly projects.ProjectFieldChange[],
    opts?: WriteOptions,
  ): Promise<projects.ProjectItemUpdated>;
  /** A repository's comments written or edited since `since`, all pages; 304 when idle (free). */
  listRepoComments(
    repo: string,
    since: string | null,
  ): Promise<{ notModified: boolean; comments: RepoCommentSnapshot[] }>;
}

export function createConversation(reads: ReadDeps, writes: WriteDeps): GitHubConversation {
  return {
    getProject: (ref) => projects.getProject(reads, ref),
    listProjectFields: (project) => projects.listProjectFields(reads, project),
    addProjectItem: (project, issueId, opts) => projects.addProjectItem(writes, project, issueId, opts),
    findProjectItem: (project, issueId, fieldIds) =>
      projects.findProjectItem(reads, project, issueId, fieldIds),
    getProjectItem: (project, itemId, fieldIds) => projects.getProjectItem(reads, project, itemId, fieldIds),
    updateProjectItemFields: (project, itemId, changes, opts) =>
      projects.updateProjectItemFields(writes, project, itemId, changes, opts),
    listRepoComments: (repo, since) => listRepoComments(reads, repo, since),
  };
}
