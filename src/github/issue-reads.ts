import { z } from "zod";
import { isRecord } from "../shared/json.js";
import { compareIso } from "../shared/iso-time.js";
import { GitHubError, parseResponse } from "./errors.js";
import type { EtagCache } from "./etag-cache.js";
import { hasMarker } from "../shared/hidden-lines.js";
import { getOrNull, getPage, type PageResult, type Query, type RestContext } from "./rest-calls.js";
import {
  GitHubCommentList,
  GitHubIssue,
  GitHubIssueList,
  isPullRequest,
  toListedSnapshot,
  toSnapshot,
  type IssueSnapshot,
} from "./schemas.js";

/** A guard on every pagination loop: 10,000 pages of 100 is a million items. */
export const MAX_PAGES = 10_000;
const PER_PAGE = 100;
const CHANGES_KIND = "changes";
/** createdSince is the connector's clock; GitHub's may be behind it. Look this much earlier. */
const CLOCK_SKEW_MARGIN_MS = 10 * 60_000;

export interface ReadDeps {
  forRepo(repo: string): Promise<RestContext>;
  etags: EtagCache;
  managedLabel: string;
  /** An item of a change list that does not parse: reported, skipped, and read again next cycle. */
  onMalformed?: (repo: string, number: number | null, reason: string) => void;
}

const ItemList = z.array(z.unknown());

/** Pages of a list, first to last, following `Link: rel="next"`. */
async function* pages(ctx: RestContext, first: PageResult): AsyncGenerator<PageResult> {
  let page = first;
  for (let count = 1; count <= MAX_PAGES; count++) {
    yield page;
    const next = page.links.next;
    if (next === undefined) return;
    page = await getPage(ctx, next);
  }
  throw new GitHubError("http", `GitHub list did not end after ${MAX_PAGES} pages`);
}

/**
 * The issues changed at or after `since`, oldest change first, whatever their labels: a person may
 * remove the managed label, and the connector must still see that person's close;
 * the caller keeps those that carry a marker or that the state maps. The query is always the same
 * URL (newest change first, no `since` parameter), so its ETag stays valid from one cycle to the
 * next: when no issue of the repository changed, page 1 answers 304 and the poll costs no rate-limit point.
 * Pages are read until an issue older than `since` appears. A read of several pages is `consistent`
 * only if page 1 is still unchanged afterwards (a 304, also free): an issue edited while the pages
 * were read moves to the top and shifts the others, so one could slip past unseen, and the caller
 * must then not move its watermark.
 */
export async function listChangedIssues(
  deps: ReadDeps,
  repo: string,
  since: string | null,
): Promise<{ notModified: boolean; issues: IssueSnapshot[]; consistent: boolean }> {
  const ctx = await deps.forRepo(repo);
  const query: Query = {
    state: "all",
    sort: "updated",
    direction: "desc",
    per_page: PER_PAGE,
  };
  const queryKey = JSON.stringify(query);
  const url = `/repos/${repo}/issues`;
  const etag = deps.etags.get(repo, CHANGES_KIND, queryKey);
  const first = await getPage(ctx, url, query, etag);
  if (first.notModified) return { notModified: true, issues: [], consistent: true };

  const collected: IssueSnapshot[] = [];
  let pageCount = 0;
  let malformed = 0;
  // Stopping at the first issue older than `since` relies on the newest-first order the query asks
  // for; a server that ignores `direction` (a stand-in, an old Enterprise Server) is read in full.
  // The order counts as shown once an issue followed a newer one with no older one before a newer
  // one; then the page that reached the watermark is the last one read (so that a poll
  // whose changes fit on page 1 is one request, not page 1, page 2 and a 304 of page 1).
  let newestFirstOrder = true;
  let orderShown = false;
  let previous: string | null = null;
  for await (const page of pages(ctx, first)) {
    pageCount++;
    let reachedWatermark = false;
    // Item by item: one issue GitHub sends malformed must not hide the others.
    for (const item of parseResponse(ItemList, page.data, "issue list")) {
      const parsed = GitHubIssue.safeParse(item);
      if (!parsed.success) {
        malformed++;
        const number = isRecord(item) && typeof item["number"] === "number" ? item["number"] : null;
        deps.onMalformed?.(repo, number, parsed.error.issues[0]?.message ?? "invalid");
        continue;
      }
      const issue = parsed.data;
      // By the instant, not the text (shared/iso-time.ts): a server may write `…:30Z` and `…:30.500Z`.
      if (previous !== null && compareIso(issue.updated_at, previous) > 0) newestFirstOrder = false;
      if (previous !== null && compareIso(issue.updated_at, previous) < 0) orderShown = true;
      previous = issue.updated_at;
      if (since !== null && compareIso(issue.updated_at, since) < 0) {
        reachedWatermark = true;
        continue;
      }
      if (!isPullRequest(issue)) collected.push(toListedSnapshot(issue, repo));
    }
    if (reachedWatermark && newestFirstOrder && orderShown) break;
  }
  // A skipped item must be read again: neither the watermark nor the ETag may move past it.
  let consistent = malformed === 0;
  if (consistent && pageCount > 1 && first.etag !== null) {
    consistent = (await getPage(ctx, url, query, first.etag)).notModified;
  }
  if (consistent && first.etag !== null) deps.etags.set(repo, CHANGES_KIND, queryKey, first.etag);
  else deps.etags.forget(repo, CHANGES_KIND);
  // Oldest change first, whatever order the server used (a stable sort keeps its order in ties).
  const issues = collected.reverse().sort((a, b) => compareIso(a.updatedAt, b.updatedAt));
  return { notModified: false, issues, consistent };
}

/**
 * The newest issue carrying the marker of `threatId`, read with the list endpoint (the search
 * index lags behind a create by seconds to minutes). With `createdSince` (less a margin for
 * clock skew) the scan covers every issue updated since then — which includes every issue
 * created since then — labelled or not (a person may have removed the label already); an older
 * issue that carries the marker is returned too, since it is the threat's issue all the same.
 * Without it (or with a time that does not parse), it scans every managed issue. `occurrence`: the
 * threat's issue of that occurrence only (`recurrence: new_issue`; the first by default).
 */
export async function findIssueByMarker(
  deps: ReadDeps,
  repo: string,
  threatId: string,
  createdSince?: string,
  occurrence = 1,
): Promise<IssueSnapshot | null> {
  return findIssueWhose(deps, repo, (body) => hasMarker(body, threatId, occurrence), createdSince);
}

/**
 * The newest issue whose body passes `test`, looked for with the list endpoint (not search, whose
 * index lags): the issues created since `createdSince` (minus a margin for clock skew), or every
 * issue with the managed label when it is not given.
 */
export async function findIssueWhose(
  deps: ReadDeps,
  repo: string,
  test: (body: string | null | undefined) => boolean,
  createdSince?: string,
): Promise<IssueSnapshot | null> {
  const ctx = await deps.forRepo(repo);
  const sinceMs = createdSince === undefined ? Number.NaN : Date.parse(createdSince) - CLOCK_SKEW_MARGIN_MS;
  const floor = Number.isFinite(sinceMs) ? sinceMs : null;
  const query: Query = {
    state: "all",
    sort: "created",
    direction: "desc",
    per_page: PER_PAGE,
    ...(floor === null ? { labels: deps.managedLabel } : { since: new Date(floor).toISOString() }),
  };
  for await (const page of pages(ctx, await getPage(ctx, `/repos/${repo}/issues`, query))) {
    for (const issue of parseResponse(GitHubIssueList, page.data, "issue list")) {
      if (!isPullRequest(issue) && test(issue.body)) return toSnapshot(issue, repo);
    }
  }
  return null;
}

/**
 * Every issue (open or closed) carrying `label`, page after page: for labels few issues carry, such
 * as a group's, so that the whole list is cheap.
 */
export async function listIssuesLabelled(
  deps: ReadDeps,
  repo: string,
  label: string,
): Promise<IssueSnapshot[]> {
  const ctx = await deps.forRepo(repo);
  const query: Query = { state: "all", labels: label, sort: "created", direction: "asc", per_page: PER_PAGE };
  const found: IssueSnapshot[] = [];
  for await (const page of pages(ctx, await getPage(ctx, `/repos/${repo}/issues`, query))) {
    for (const issue of parseResponse(GitHubIssueList, page.data, "issue list")) {
      if (!isPullRequest(issue)) found.push(toSnapshot(issue, repo));
    }
  }
  return found;
}

export async function getIssue(deps: ReadDeps, repo: string, number: number): Promise<IssueSnapshot | null> {
  const data = await getOrNull(await deps.forRepo(repo), `/repos/${repo}/issues/${number}`);
  if (data === null) return null;
  const issue = parseResponse(GitHubIssue, data, "issue");
  return isPullRequest(issue) ? null : toSnapshot(issue, repo);
}

export async function listComments(
  deps: ReadDeps,
  repo: string,
  number: number,
): Promise<Array<{ id: number; body: string }>> {
  const ctx = await deps.forRepo(repo);
  const comments: Array<{ id: number; body: string }> = [];
  const first = await getPage(ctx, `/repos/${repo}/issues/${number}/comments`, { per_page: PER_PAGE });
  for await (const page of pages(ctx, first)) {
    for (const comment of parseResponse(GitHubCommentList, page.data, "comment list")) {
      comments.push({ id: comment.id, body: comment.body ?? "" });
    }
  }
  return comments;
}
