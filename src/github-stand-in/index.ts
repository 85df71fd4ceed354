/**
 * A local stand-in for the parts of GitHub's REST API the connector uses, for tests and the demo.
 *
 * Stateful and in memory; repositories exist on first use. Serves the issues list (state, labels,
 * since, sort, direction, creator, assignee; page-number pagination with absolute `Link` URLs;
 * pull requests included with a `pull_request` key), create/get/update issue, issue comments,
 * issue events (closed, reopened, labeled, unlabeled, renamed), labels, repository-wide comments
 * and events, `GET /user`, `GET /rate_limit`, `GET /repos/{owner}/{repo}` and, in GitHub App mode,
 * the installation and access-token routes. Every GET answers with an ETag; a matching
 * `If-None-Match` gets a 304 that costs no rate-limit point. Faults and people's actions are
 * driven in-process through {@link RunningStandIn}: people close, reopen, relabel, lock a
 * conversation (comments answer 403), archive a repository (writes answer 403), delete an issue
 * (410) and transfer one (301 to its new place); `faults.afterWrites(n, action)` runs a person's
 * action right after the connector's n-th write, so a test needs no sleep to act "between" writes.
 * With the `webhook` option, a person's close or reopen is also POSTed as a signed `issues`
 * delivery, as GitHub's webhooks send it.
 * Also sub-issues (by issue id, one parent, at most 100; off per repository as on a GitHub
 * Enterprise Server without them), milestones (`due_on` kept as a US Pacific date) and issue types
 * (per organization; `type` on issue create and update); see features.ts. Projects (the current
 * kind, org and user): the project, its fields (text, number, date, single select), items added by
 * issue id (a repeated add answers the existing item) and set with one PATCH; tests make projects
 * and people's board edits through `projects`, and `projects: false` answers every route 404.
 * People act over HTTP too, without a token (`/_sim/*`, person-routes.ts): close, reopen, comment
 * and assign as a named login, for someone trying the connector by hand with `simulate --with-github`.
 */
export { startGitHubStandIn } from "./server.js";
export { StandInError } from "./errors.js";
export type { RepoSettings } from "./repo-settings.js";
export type {
  FaultControls,
  PersonActions,
  RunningStandIn,
  StandInComment,
  StandInCounters,
  StandInEvent,
  StandInEventKind,
  StandInIssue,
  StandInOptions,
} from "./types.js";
export type { StandInDelivery, StandInWebhookOptions } from "./types.js";
export type { StandInProject, StandInProjectItem, StandInProjects } from "./project-controls.js";
export type { NewProject, ProjectFieldType } from "./project-store.js";
