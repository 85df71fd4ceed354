/**
 * A local, in-memory stand-in for the parts of GitHub's REST API the connector uses, for tests and
 * the demo: issues, comments, events, labels, sub-issues, milestones, issue types, projects, App
 * installation tokens, ETags and 304s. People's actions and faults are driven in-process through
 * {@link RunningStandIn}; `faults.afterWrites(n, action)` acts right after the connector's n-th
 * write; with `webhook`, a person's close or reopen is also POSTed as a signed delivery.
 * People also act over HTTP without a token (`/_sim/*`, person-routes.ts): close, reopen, comment and
 * assign as a named login, for someone trying the connector by hand with `simulate --with-github`.
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
