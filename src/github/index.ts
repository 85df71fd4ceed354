/**
 * The GitHub side of the connector: REST only (`X-GitHub-Api-Version: 2022-11-28`) under one
 * request policy, token or GitHub App authentication. What callers must know:
 * - Every write waits for `gateway.budget` itself (do not acquire it first); `{ deadlineMs }` as a
 *   write's last argument fails it with `budget_deadline` when no slot comes by then.
 * - `createIssue` and `createComment` are sent exactly once: an unknown outcome fails with
 *   `outcome_unknown`, resolved by `findIssueByMarker` or `listComments`, never by sending again.
 * - `lastStateChange().bySelf`: a token's user, or this App. A person using the connector's own
 *   account cannot be told from it.
 * - `isPermanentRefusal(error)`: GitHub will refuse it again (403 not a rate limit, 404, 410, 422).
 * - Sub-issues, milestones, issue types and projects answer `{ available: false }` where missing.
 * - ETags of change queries move through the state as JSON (`exportEtags`, `importEtags`).
 */
export {
  createGitHub,
  type GitHubGateway,
  type GitHubWorkflow,
  type GitHubOptions,
  type GitHubStats,
  type LastStateChange,
  type RepositoryReader,
} from "./gateway.js";
export { GitHubError, isGone, isPermanentRefusal } from "./errors.js";
export type { EtagEntry } from "./etag-cache.js";
export type { IssuePatch, NewIssue, WriteOptions } from "./issue-writes.js";
export type { IssueTypeOffer } from "./issue-types.js";
export type {
  Milestone,
  MilestoneCreated,
  MilestoneList,
  MilestonePatch,
  MilestoneUpdated,
  NewMilestone,
} from "./milestones.js";
export type { AttachResult, DetachResult, SubIssueList } from "./sub-issues.js";
export type { GitHubConversation } from "./conversation.js";
export type {
  Project,
  ProjectFieldChange,
  ProjectFields,
  ProjectItemAdded,
  ProjectItemFound,
  ProjectItemUpdated,
  ProjectLookup,
  ProjectRef,
} from "./projects.js";
export type { ProjectField, ProjectFieldValue, ProjectItem } from "./project-schemas.js";
export type { RepoCommentSnapshot } from "./repo-comments.js";
export type { Unavailable } from "./unavailable.js";
export { hasMarker, parseMarker } from "../shared/hidden-lines.js";
export type { GitHubRepository, IssueSnapshot, StateReason } from "./schemas.js";
export { createWriteBudget, type WriteBudget, type WriteBudgetSnapshot } from "./write-budget.js";
