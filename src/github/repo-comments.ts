import { z } from "zod";
import { GitHubError, parseResponse } from "./errors.js";
import { MAX_PAGES, type ReadDeps } from "./issue-reads.js";
import { getPage, type Query } from "./rest-calls.js";

const RepoComment = z.looseObject({
  id: z.number().int(),
  body: z.string().nullable().optional(),
  issue_url: z.string(),
  user: z.looseObject({ login: z.string(), type: z.string().optional() }).nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  performed_via_github_app: z
    .looseObject({ id: z.number().int().optional(), client_id: z.string().nullable().optional() })
    .nullable()
    .optional(),
});
const RepoCommentList = z.array(RepoComment);

/** One comment of a repository's issues, as the notes need it (which to leave out is the engine's choice). */
export interface RepoCommentSnapshot {
  id: number;
  repo: string;
  /** The issue's number, from `issue_url`. */
  issueNumber: number;
  body: string;
  /** Null for a deleted ("ghost") account. */
  author: string | null;
  /** GitHub's `user.type`: `User`, `Bot`, `Organization`, … */
  authorType: string | null;
  /** The GitHub App the comment was written through, when it was. */
  viaApp: { id: number | null; clientId: string | null } | null;
  createdAt: string;
  updatedAt: string;
}

const COMMENTS_KIND = "repo-comments";
const PER_PAGE = 100;

function toSnapshot(c: z.infer<typeof RepoComment>, repo: string): RepoCommentSnapshot | null {
  const number = /\/issues\/(\d+)$/.exec(c.issue_url)?.[1];
  if (number === undefined) return null;
  const app = c.performed_via_github_app;
  return {
    id: c.id,
    repo,
    issueNumber: Number(number),
    body: c.body ?? "",
    author: c.user?.login ?? null,
    authorType: c.user?.type ?? null,
    viaApp: app ? { id: app.id ?? null, clientId: app.client_id ?? null } : null,
    createdAt: c.created_at,
    updatedAt: c.updated_at,
  };
}

/**
 * The comments created or edited since `since`, every page, ascending id (so none shifts out of
 * sight). A one-page answer's ETag is kept: an unchanged repository answers 304 (`notModified`).
 */
export async function listRepoComments(
  deps: ReadDeps,
  repo: string,
  since: string | null,
): Promise<{ notModified: boolean; comments: RepoCommentSnapshot[] }> {
  const ctx = await deps.forRepo(repo);
  const query: Query = { per_page: PER_PAGE, ...(since === null ? {} : { since }) };
  const queryKey = JSON.stringify(query);
  const url = `/repos/${repo}/issues/comments`;
  let page = await getPage(ctx, url, query, deps.etags.get(repo, COMMENTS_KIND, queryKey));
  if (page.notModified) return { notModified: true, comments: [] };
  const etag = page.etag;
  const comments: RepoCommentSnapshot[] = [];
  for (let count = 1; count <= MAX_PAGES; count++) {
    for (const c of parseResponse(RepoCommentList, page.data, "comment list")) {
      const snapshot = toSnapshot(c, repo);
      if (snapshot !== null) comments.push(snapshot);
    }
    const next = page.links.next;
    if (next === undefined) {
      // Only a one-page answer's ETag: with more pages, a new comment would hide behind page 1's 304.
      if (etag === null || count > 1) deps.etags.forget(repo, COMMENTS_KIND);
      else deps.etags.set(repo, COMMENTS_KIND, queryKey, etag);
      return { notModified: false, comments };
    }
    page = await getPage(ctx, next);
  }
  throw new GitHubError("http", `GitHub's comment list of ${repo} did not end after ${MAX_PAGES} pages`);
}
