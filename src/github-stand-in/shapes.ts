import type { components } from "@octokit/openapi-types";
import type { CommentRecord, EventRecord, IssueRecord, LabelRecord, RepoRecord } from "./store.js";

export type ApiIssue = components["schemas"]["issue"];
type ApiComment = components["schemas"]["issue-comment"];
type ApiEvent = components["schemas"]["issue-event"];
type ApiLabel = components["schemas"]["label"];
type ApiUser = components["schemas"]["simple-user"];
type ApiIntegration = NonNullable<components["schemas"]["nullable-integration"]>;
export type ApiRateLimit = components["schemas"]["rate-limit"];

/** What every rendered object needs: the stand-in's base URL and the app (when in app mode). */
export interface ShapeContext {
  baseUrl: string;
  app: ApiIntegration | null;
}

/** GitHub's timestamps have second precision ("2011-04-14T16:00:49Z"). */
export function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Stable small ids per login, so that the same person always has the same user id. */
function userId(login: string): number {
  let h = 0;
  for (const ch of login) h = (Math.imul(h, 31) + (ch.codePointAt(0) ?? 0)) >>> 0;
  return (h % 90_000_000) + 1_000_000;
}

export function user(ctx: ShapeContext, login: string): ApiUser {
  const api = `${ctx.baseUrl}/users/${encodeURIComponent(login)}`;
  return {
    login,
    id: userId(login),
    node_id: Buffer.from(`User${userId(login)}`).toString("base64"),
    avatar_url: `${ctx.baseUrl}/avatars/${encodeURIComponent(login)}`,
    gravatar_id: "",
    url: api,
    html_url: `${ctx.baseUrl}/${encodeURIComponent(login)}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type: login.endsWith("[bot]") ? "Bot" : "User",
    site_admin: false,
    user_view_type: "public",
  };
}

function repoApi(ctx: ShapeContext, r: RepoRecord): string {
  return `${ctx.baseUrl}/repos/${r.owner}/${r.name}`;
}

export function label(ctx: ShapeContext, r: RepoRecord, l: LabelRecord): ApiLabel {
  return {
    id: l.id,
    node_id: Buffer.from(`Label${l.id}`).toString("base64"),
    url: `${repoApi(ctx, r)}/labels/${encodeURIComponent(l.name)}`,
    name: l.name,
    description: l.description,
    color: l.color,
    default: l.isDefault,
  };
}

function reactions(url: string): NonNullable<ApiIssue["reactions"]> {
  return {
    url: `${url}/reactions`,
    total_count: 0,
    "+1": 0,
    "-1": 0,
    laugh: 0,
    confused: 0,
    heart: 0,
    hooray: 0,
    eyes: 0,
    rocket: 0,
  };
}

/** An issue as GitHub answers it; `closed_by` only on single-issue answers, as on GitHub. */
export function issue(
  ctx: ShapeContext,
  r: RepoRecord,
  i: IssueRecord,
  comments: number,
  opts: { single: boolean },
): ApiIssue {
  const url = `${repoApi(ctx, r)}/issues/${i.number}`;
  const htmlBase = `${ctx.baseUrl}/${r.owner}/${r.name}`;
  const labels = i.labels.map((name) => {
    const l = r.labels.get(name.toLowerCase());
    return l ? label(ctx, r, l) : { name };
  });
  const assignees = i.assignees.map((login) => user(ctx, login));
  const out: ApiIssue = {
    id: i.id,
    node_id: Buffer.from(`Issue${i.id}`).toString("base64"),
    url,
    repository_url: repoApi(ctx, r),
    labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`,
    events_url: `${url}/events`,
    html_url: `${htmlBase}/${i.isPullRequest ? "pull" : "issues"}/${i.number}`,
    number: i.number,
    state: i.state,
    state_reason: i.stateReason,
    title: i.title,
    body: i.body,
    user: user(ctx, i.user),
    labels,
    assignee: assignees[0] ?? null,
    assignees,
    milestone: null,
    locked: false,
    active_lock_reason: null,
    comments,
    closed_at: i.closedAt === null ? null : isoSeconds(i.closedAt),
    created_at: isoSeconds(i.createdAt),
    updated_at: isoSeconds(i.updatedAt),
    author_association: "NONE",
    timeline_url: `${url}/timeline`,
    performed_via_github_app: i.viaApp ? ctx.app : null,
    reactions: reactions(url),
  };
  if (i.isPullRequest) {
    out.pull_request = {
      url: `${repoApi(ctx, r)}/pulls/${i.number}`,
      html_url: `${htmlBase}/pull/${i.number}`,
      diff_url: `${htmlBase}/pull/${i.number}.diff`,
      patch_url: `${htmlBase}/pull/${i.number}.patch`,
      merged_at: null,
    };
    out.draft = false;
  }
  if (opts.single) out.closed_by = i.closedBy === null ? null : user(ctx, i.closedBy);
  return out;
}

export function comment(ctx: ShapeContext, r: RepoRecord, c: CommentRecord): ApiComment {
  const url = `${repoApi(ctx, r)}/issues/comments/${c.id}`;
  return {
    id: c.id,
    node_id: Buffer.from(`IssueComment${c.id}`).toString("base64"),
    url,
    body: c.body,
    html_url: `${ctx.baseUrl}/${r.owner}/${r.name}/issues/${c.issueNumber}#issuecomment-${c.id}`,
    issue_url: `${repoApi(ctx, r)}/issues/${c.issueNumber}`,
    user: user(ctx, c.user),
    created_at: isoSeconds(c.createdAt),
    updated_at: isoSeconds(c.updatedAt),
    author_association: "NONE",
    performed_via_github_app: c.viaApp ? ctx.app : null,
    reactions: reactions(url),
  };
}

export function event(ctx: ShapeContext, r: RepoRecord, e: EventRecord): ApiEvent {
  const out: ApiEvent = {
    id: e.id,
    node_id: Buffer.from(`IssueEvent${e.id}`).toString("base64"),
    url: `${repoApi(ctx, r)}/issues/events/${e.id}`,
    actor: user(ctx, e.actor.login),
    event: e.event,
    commit_id: null,
    commit_url: null,
    created_at: isoSeconds(e.createdAt),
    performed_via_github_app: e.actor.viaApp ? ctx.app : null,
  };
  if (e.label) out.label = e.label;
  if (e.rename) out.rename = e.rename;
  // GitHub reports the close reason on `closed` events (and `reopened` on reopen events).
  if (e.stateReason !== undefined) Object.assign(out, { state_reason: e.stateReason });
  return out;
}
