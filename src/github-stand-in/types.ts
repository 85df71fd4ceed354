import type { FeatureOptions } from "./features.js";
import type { RepoSettings } from "./repo-settings.js";
import type { StandInProjects } from "./project-controls.js";
import type { Clock } from "../shared/clock.js";

/** Options of {@link startGitHubStandIn}; `undefined` means the default. */
export interface StandInOptions {
  /** Interface to bind; tests use "127.0.0.1" (the default). */
  host?: string | undefined;
  /** 0 (the default) lets the OS pick a free port. */
  port?: number | undefined;
  /** Accepted `Authorization: token X` / `Bearer X` values; default `["ghp_standin"]`. */
  tokens?: string[] | undefined;
  /** GitHub App mode: app JWTs (RS256, verified with this public key) mint installation tokens. */
  appAuth?: { appId: string; publicKeyPem: string; installationId: number } | undefined;
  /** Secondary rate limit on content-creating requests; off unless given. */
  secondaryLimit?: { perMinute: number; perHour: number; retryAfterSeconds?: number | undefined } | undefined;
  /** Primary rate limit (points per rolling hour window); default 5000, as for a token on GitHub.com. */
  primaryLimit?: { perHour: number } | undefined;
  /** Largest `per_page` honoured; larger values are clamped like GitHub does. Default 100. */
  perPageMax?: number | undefined;
  clock?: Clock | undefined;
  /** The login the connector's credentials act as; default `"threatbridge[bot]"`. */
  botLogin?: string | undefined;
  /** Only these repositories exist, with their settings; default: every repository exists. */
  repositories?: Record<string, RepoSettings> | undefined;
  /** When given, a person's close or reopen is POSTed here as a signed `issues` delivery. */
  webhook?: StandInWebhookOptions | undefined;
  /** Sub-issues everywhere (default), nowhere, or everywhere but the listed repositories; missing, their routes answer 404. */
  subIssues?: FeatureOptions["subIssues"];
  /** Issue types per organization; `"unavailable"`: their routes answer 404 and `type` is ignored. */
  issueTypes?: FeatureOptions["issueTypes"];
  /** Whether GitHub's REST API for projects exists (default true). */
  projects?: FeatureOptions["projects"];
}

/** A snapshot of one stored issue or pull request (plain data, safe to keep). */
export interface StandInIssue {
  id: number;
  number: number;
  title: string;
  body: string | null;
  state: "open" | "closed";
  stateReason: "completed" | "not_planned" | "reopened" | null;
  labels: string[];
  assignees: string[];
  user: string;
  isPullRequest: boolean;
  comments: number;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  closedBy: string | null;
  /** The milestone's number, the issue type's name, and the parent issue's `id`, where set. */
  milestone: number | null;
  type: string | null;
  parentId: number | null;
}

export interface StandInComment {
  id: number;
  issueNumber: number;
  body: string;
  user: string;
  /** True when the comment was written with an installation token of the app. */
  viaApp: boolean;
  createdAt: string;
  updatedAt: string;
}

export type StandInEventKind = "closed" | "reopened" | "labeled" | "unlabeled" | "renamed";

export interface StandInEvent {
  id: number;
  issueNumber: number;
  event: StandInEventKind;
  actor: string;
  /** True when the change was made through the GitHub App (an installation token). */
  viaApp: boolean;
  createdAt: string;
  stateReason?: "completed" | "not_planned" | "reopened" | null;
  label?: { name: string; color: string };
  rename?: { from: string; to: string };
}

export interface StandInCounters {
  /** Every request received, whatever its outcome. */
  requests: number;
  /** Content-creating requests (POST/PATCH/PUT/DELETE) that were processed, including lost responses. */
  writes: number;
  /** Primary rate-limit points: every authenticated request except 304s and `GET /rate_limit`. */
  rateLimitPoints: number;
  notModified: number;
  secondaryLimited: number;
  /** Requests per `"METHOD /route/{template}"`; unknown routes count under `"unknown"`. */
  byRoute: Record<string, number>;
}

export interface PersonActions {
  close(repo: string, number: number, opts: { reason: "completed" | "not_planned"; login: string }): void;
  reopen(repo: string, number: number, login: string): void;
  comment(repo: string, number: number, body: string, login: string): void;
  /** Assigns people to the issue (added to its assignees, as GitHub's "Assignees" menu does). */
  assign(repo: string, number: number, assignees: string[], login: string): void;
  /** Edits a comment's text (its author's edit): `updated_at` moves on, `created_at` stays. */
  editComment(repo: string, commentId: number, body: string): void;
  relabel(repo: string, number: number, labels: string[], login: string): void;
  /** Sets the issue's assignees to exactly these (a person's reassignment in the web UI). */
  reassign(repo: string, number: number, assignees: string[], login: string): void;
  editTitle(repo: string, number: number, title: string, login: string): void;
  openPullRequest(repo: string, title: string, labels: string[], login: string): number;
  /** Locks the conversation: the connector's comments are refused with 403. */
  lock(repo: string, number: number, login: string): void;
  /** Archives the repository: read-only, every write answers 403. */
  archive(repo: string): void;
  /** Unarchives the repository: writes are accepted again. */
  unarchive(repo: string): void;
  /** Deletes the issue: it answers 410 and leaves every list. */
  deleteIssue(repo: string, number: number): void;
  /** Transfers the issue to `toRepo`; the old address answers 301 there. Returns the new number. */
  transfer(repo: string, number: number, toRepo: string, login: string): number;
  /** An organization admin replaces the organization's issue types (no effect where types are "unavailable"). */
  setIssueTypes(org: string, names: string[]): void;
}

export interface FaultControls {
  /** The next matching request is processed but its socket is destroyed instead of answered. */
  loseNextResponse(method: string, routePattern: string): void;
  /** The next matching request is answered with this status and not processed. */
  failNext(method: string, routePattern: string, status: 500 | 502 | 503): void;
  /** The next matching request is answered 403 with `retry-after` (a secondary rate limit). */
  secondaryLimitNext(method: string, routePattern: string, retryAfterSeconds: number): void;
  /** The next matching request is answered 422 "Validation Failed" (body too long) and not processed. */
  refuseBodyNext(method: string, routePattern: string): void;
  /** Runs `action` once the n-th write from now was processed, before it is answered. */
  afterWrites(n: number, action: () => void): void;
}

export interface RunningStandIn {
  /** The `api_url`, e.g. `http://127.0.0.1:PORT` (no trailing slash). */
  url: string;
  close(): Promise<void>;
  issues(repo: string): StandInIssue[];
  comments(repo: string, number: number): StandInComment[];
  events(repo: string, number: number): StandInEvent[];
  counters(): StandInCounters;
  person: PersonActions;
  faults: FaultControls;
  /** Projects (the current kind): made by tests, edited by people on the board. */
  projects: StandInProjects;
  /** The webhook deliveries sent (none without the `webhook` option), and a redelivery. */
  webhooks: StandInWebhooks;
}

export interface StandInWebhookOptions {
  /** Where deliveries go, e.g. http://127.0.0.1:9464/github/webhook. */
  url: string;
  secret: string;
}

/** One delivery and what the receiver answered (null: no answer, e.g. nothing listening). */
export interface StandInDelivery {
  id: string;
  event: string;
  action: string;
  repo: string;
  number: number;
  sentAt: number;
  status: number | null;
}

/** The deliveries a stand-in with a webhook has sent, for tests. */
export interface StandInWebhooks {
  /** Every delivery sent so far, oldest first. */
  deliveries(): StandInDelivery[];
  /** Sends a delivery again with the same id and body (GitHub's "Redeliver"). */
  redeliver(id: string): Promise<number | null>;
  /** Resolves once every delivery sent so far has its answer. */
  settled(): Promise<void>;
}
