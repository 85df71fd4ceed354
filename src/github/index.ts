/**
 * The GitHub side of the connector: REST only (Octokit under the request policy of
 * request-policy.ts: rate limits, retries, writes one at a time; `X-GitHub-Api-Version:
 * 2022-11-28` on every request), token or GitHub App authentication.
 *
 * What callers must know:
 * - Every write (create, update, comment; labels are part of an update) waits for
 *   `gateway.budget` itself. Do not acquire the budget before calling a write: that would count
 *   the write twice. To stop writing at a deadline (`sync --max-duration`), pass
 *   `{ deadlineMs }` as the last argument of a write: when the budget has no slot by then, the
 *   write is not sent and fails with code `budget_deadline`. `budget.nextSlotAt()` tells when
 *   the next write could go.
 * - `createIssue` and `createComment` are sent exactly once. When their outcome is unknown
 *   (network error, timeout, 5xx, lost or unreadable answer) they fail with `outcome_unknown`:
 *   resolve it with `findIssueByMarker` (issues) or `listComments` (comments), never by sending
 *   again. GETs and PATCHes are retried on 5xx and network errors.
 * - `rate_limited` carries `retryAfterMs`; the budget is already paused for secondary limits.
 * - Every issue written keeps the managed label (added when a label list lacks it).
 * - `updateIssue` with an empty patch sends no write (it reads the issue instead).
 * - `lastStateChange().bySelf`: with a token, the actor's login equals the token's user; with a
 *   GitHub App, the event was performed via this App. A person who closes issues with the very
 *   account whose token the connector uses is indistinguishable from the connector.
 *   `lastStateChanges(issues, since)` answers it for several issues with one read of the
 *   repository's event list, and with none for a close whose snapshot carries `closedBy` (only an
 *   answer about one issue does: a GET or a PATCH) when the credentials are a token.
 * - `isPermanentRefusal(error)`: GitHub will refuse the same request again (403 that is not a
 *   rate limit, 404, 410, 422); `isGone(error)`: the issue answered 404 or 410.
 * - Sub-issues, milestones and issue types answer `{ available: false, status, message }` where the
 *   repository does not have them (404, 403, 410, or a 422 that says so): a result to fall back on,
 *   not a throw. `createIssue` sets `github.issue_type` (the `issueType` option) where the
 *   repository offers it, and leaves it out elsewhere (said once in the log).
 * - ETags of change queries are kept per gateway; `exportEtags()`/`importEtags()` move them
 *   through the state file as plain JSON.
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
