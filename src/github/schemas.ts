import { z } from "zod";
import { OWN_LINES, parseMarker } from "../shared/hidden-lines.js";

/**
 * GitHub REST responses, parsed at the edge (loose: GitHub adds fields freely). Only the
 * fields the connector reads are named.
 */
export const GitHubUser = z.looseObject({ login: z.string() });

const Label = z.union([z.string(), z.looseObject({ name: z.string() })]);

export const GitHubIssue = z.looseObject({
  // GitHub always sends it; a stand-in or a fixture that does not is read as null.
  id: z.number().int().optional(),
  number: z.number().int(),
  html_url: z.string(),
  repository_url: z.string().optional(),
  state: z.string(),
  state_reason: z.string().nullable().optional(),
  title: z.string(),
  body: z.string().nullable().optional(),
  labels: z.array(Label).optional(),
  assignees: z.array(GitHubUser).nullable().optional(),
  updated_at: z.string(),
  created_at: z.string(),
  pull_request: z.unknown().optional(),
  /** Only in answers about one issue (GET, PATCH), never in lists. */
  closed_by: GitHubUser.nullable().optional(),
  milestone: z.looseObject({ title: z.string() }).nullable().optional(),
});
export type GitHubIssue = z.infer<typeof GitHubIssue>;

export const GitHubIssueList = z.array(GitHubIssue);

const GitHubComment = z.looseObject({ id: z.number().int(), body: z.string().nullable().optional() });
export const GitHubCommentList = z.array(GitHubComment);

export const GitHubIssueEvent = z.looseObject({
  event: z.string(),
  actor: GitHubUser.nullable().optional(),
  performed_via_github_app: z
    .looseObject({
      id: z.number().optional(),
      slug: z.string().optional(),
      client_id: z.string().nullable().optional(),
    })
    .nullable()
    .optional(),
  state_reason: z.string().nullable().optional(),
  created_at: z.string().optional(),
  /** Present in the repository's event list (`/repos/{owner}/{repo}/issues/events`). */
  issue: z.looseObject({ number: z.number().int() }).nullable().optional(),
});
export type GitHubIssueEvent = z.infer<typeof GitHubIssueEvent>;
export const GitHubIssueEventList = z.array(GitHubIssueEvent);

export const GitHubInstallation = z.looseObject({ id: z.number().int() });
export const GitHubApp = z.looseObject({ id: z.number().int(), slug: z.string() });

/** `GET /repos/{owner}/{repo}`, as far as `threatbridge check` reads it. */
export const GitHubRepository = z.looseObject({
  full_name: z.string(),
  archived: z.boolean().optional(),
  has_issues: z.boolean().optional(),
  /** Shown for a user's token; absent for an App's installation token. */
  permissions: z
    .looseObject({
      admin: z.boolean().optional(),
      maintain: z.boolean().optional(),
      push: z.boolean().optional(),
      triage: z.boolean().optional(),
      pull: z.boolean().optional(),
    })
    .optional(),
});
export type GitHubRepository = z.infer<typeof GitHubRepository>;

export type StateReason = "completed" | "not_planned" | "reopened" | "duplicate";
const STATE_REASONS: ReadonlySet<string> = new Set(["completed", "not_planned", "reopened", "duplicate"]);

export interface IssueSnapshot {
  /** "owner/name"; follows a transferred issue to its new repository. */
  repo: string;
  number: number;
  /** GitHub's id of the issue (not its number): what the sub-issue and duplicate endpoints take. */
  id: number | null;
  /** html_url */
  url: string;
  state: "open" | "closed";
  stateReason: StateReason | null;
  title: string;
  body: string;
  labels: string[];
  assignees: string[];
  updatedAt: string;
  /** From the marker `<!-- threatbridge:threat=<uuid> -->` in the body, or null. */
  threatId: string | null;
  /** The title of its milestone, or null; absent where the answer did not say (the engine's fakes). */
  milestone?: string | null;
  /**
   * Who closed it, when the answer says: GitHub sends `closed_by` only about one issue (a GET or a
   * PATCH), never in a list. Absent when not said; null when closed by a deleted account.
   */
  closedBy?: string | null;
}

function isStateReason(value: string): value is StateReason {
  return STATE_REASONS.has(value);
}

/** The repository of an issue from its `repository_url` (…/repos/owner/name), else `fallback`. */
function repoOf(issue: GitHubIssue, fallback: string): string {
  const match = /\/repos\/([^/]+\/[^/]+)\/?$/.exec(issue.repository_url ?? "");
  return match?.[1] ?? fallback;
}

export function isPullRequest(issue: GitHubIssue): boolean {
  return issue.pull_request !== undefined && issue.pull_request !== null;
}

/**
 * An issue of the change list as the intake keeps it: its body reduced to the connector's own
 * hidden lines (the marker and the revision line, all the intake reads of it). A backfill lists
 * every issue it created in the same cycle, tens of thousands at once, and kept whole their bodies
 * held hundreds of megabytes (a 1,000,000-threat backfill must run in bounded memory). Everything
 * else a feature reads of an issue is kept: its assignees (the note's section names them), its
 * state, close reason, labels and milestone.
 */
export function toListedSnapshot(issue: GitHubIssue, repo: string): IssueSnapshot {
  const snapshot = toSnapshot(issue, repo);
  return { ...snapshot, body: snapshot.body.match(OWN_LINES)?.join("\n") ?? "" };
}

export function toSnapshot(issue: GitHubIssue, repo: string): IssueSnapshot {
  const body = issue.body ?? "";
  const reason = issue.state_reason ?? null;
  return {
    repo: repoOf(issue, repo),
    number: issue.number,
    id: issue.id ?? null,
    url: issue.html_url,
    state: issue.state === "closed" ? "closed" : "open",
    // Reasons GitHub adds later are reported as null rather than guessed at.
    stateReason: reason !== null && isStateReason(reason) ? reason : null,
    title: issue.title,
    body,
    labels: (issue.labels ?? []).map((label) => (typeof label === "string" ? label : label.name)),
    assignees: (issue.assignees ?? []).map((user) => user.login),
    updatedAt: issue.updated_at,
    threatId: parseMarker(body),
    milestone: issue.milestone?.title ?? null,
    ...(issue.closed_by === undefined ? {} : { closedBy: issue.closed_by?.login ?? null }),
  };
}
