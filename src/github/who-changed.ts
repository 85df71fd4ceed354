import { parseResponse } from "./errors.js";
import { MAX_PAGES, type ReadDeps } from "./issue-reads.js";
import { getPage, type PageResult, type Query } from "./rest-calls.js";
import { GitHubIssueEventList, type GitHubIssueEvent, type IssueSnapshot } from "./schemas.js";

/**
 * Who made an issue's latest close or reopen: names the person in a verdict's note and tells the
 * connector's App from a person. At most one read per change, fewer when several come at once.
 */

export interface LastStateChange {
  event: "closed" | "reopened";
  login: string;
  viaApp: boolean;
  bySelf: boolean;
  stateReason: string | null;
}

type StateEvent = GitHubIssueEvent & { event: "closed" | "reopened" };

type App = { id?: number | undefined; client_id?: string | null | undefined } | null;

export interface WhoDeps {
  reads: ReadDeps;
  /** With App credentials the App's own closes show only in events (`performed_via_github_app`). */
  appAuth: boolean;
  isSelf(login: string, app: App): Promise<boolean>;
  /** A read that failed: that issue's answer is null (who did it only names the person). */
  onError(repo: string, number: number | null, error: unknown): void;
}

const PER_PAGE = 100;
/** The repository's event list is read for several changes at once, never past this many pages. */
const REPO_EVENT_PAGES = 5;

function isStateEvent(event: GitHubIssueEvent): event is StateEvent {
  return event.event === "closed" || event.event === "reopened";
}

function lastStateEventIn(page: PageResult): StateEvent | null {
  const events = parseResponse(GitHubIssueEventList, page.data, "issue event list");
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (event !== undefined && isStateEvent(event)) return event;
  }
  return null;
}

/** The latest `closed` or `reopened` event of one issue, read from the last page backwards. */
async function lastStateEvent(deps: ReadDeps, repo: string, number: number): Promise<StateEvent | null> {
  const ctx = await deps.forRepo(repo);
  const first = await getPage(ctx, `/repos/${repo}/issues/${number}/events`, { per_page: PER_PAGE });
  let url = first.links.last;
  for (let count = 0; url !== undefined && count < MAX_PAGES; count++) {
    const page = await getPage(ctx, url);
    const found = lastStateEventIn(page);
    if (found !== null) return found;
    const prev = page.links.prev;
    // The first page is already in hand; stop walking back when `prev` reaches it.
    url = prev !== undefined && page.links.first !== prev ? prev : undefined;
  }
  return lastStateEventIn(first);
}

/**
 * The latest state event of each wanted issue from the repository's event list, newest first,
 * down to the poll's previous watermark (`notBefore`); those not found are read on their own.
 */
async function repoStateEvents(
  deps: ReadDeps,
  repo: string,
  wanted: ReadonlySet<number>,
  notBefore: string | null,
  maxPages: number,
): Promise<Map<number, StateEvent>> {
  const ctx = await deps.forRepo(repo);
  const found = new Map<number, StateEvent>();
  const floor = notBefore === null ? Number.NaN : Date.parse(notBefore);
  let newestFirst = true;
  let previous = Number.NaN;
  let url: string | undefined = `/repos/${repo}/issues/events`;
  let query: Query = { per_page: PER_PAGE };
  for (let count = 0; url !== undefined && count < maxPages && found.size < wanted.size; count++) {
    const page = await getPage(ctx, url, query);
    let reachedFloor = false;
    for (const event of parseResponse(GitHubIssueEventList, page.data, "issue event list")) {
      const at = Date.parse(event.created_at ?? "");
      if (at > previous) newestFirst = false;
      if (!Number.isNaN(at)) previous = at;
      if (at < floor) reachedFloor = true;
      const number = event.issue?.number;
      if (number !== undefined && wanted.has(number) && !found.has(number) && isStateEvent(event)) {
        found.set(number, event);
      }
    }
    if (reachedFloor && newestFirst) break;
    url = page.links.next;
    query = {};
  }
  return found;
}

async function toChange(deps: WhoDeps, event: StateEvent): Promise<LastStateChange> {
  // A deleted account shows as a null actor; GitHub renders it as "ghost".
  const login = event.actor?.login ?? "ghost";
  const app = event.performed_via_github_app ?? null;
  return {
    event: event.event,
    login,
    viaApp: app !== null,
    bySelf: await deps.isSelf(login, app),
    stateReason: event.state_reason ?? null,
  };
}

export async function lastStateChange(
  deps: WhoDeps,
  repo: string,
  number: number,
): Promise<LastStateChange | null> {
  const event = await lastStateEvent(deps.reads, repo, number);
  return event === null ? null : toChange(deps, event);
}

/** Who made each issue's latest close or reopen, in order; a failed read answers null. */
export async function lastStateChanges(
  deps: WhoDeps,
  issues: readonly IssueSnapshot[],
  notBefore: string | null,
): Promise<Array<LastStateChange | null>> {
  const out: Array<LastStateChange | null> = issues.map(() => null);
  const unread = new Map<string, number[]>();
  for (const [i, issue] of issues.entries()) {
    // An App's close is by its bot account: only the event says it went through the App.
    const closedBy = issue.closedBy;
    if (issue.state === "closed" && typeof closedBy === "string" && !deps.appAuth) {
      const bySelf = await deps.isSelf(closedBy, null).catch((error: unknown) => {
        deps.onError(issue.repo, issue.number, error);
        return false;
      });
      out[i] = { event: "closed", login: closedBy, viaApp: false, bySelf, stateReason: issue.stateReason };
    } else {
      unread.set(issue.repo, [...(unread.get(issue.repo) ?? []), i]);
    }
  }
  for (const [repo, indexes] of unread) {
    let shared = new Map<number, StateEvent>();
    if (indexes.length > 1) {
      const wanted = new Set(indexes.map((i) => issues[i]?.number ?? -1));
      const maxPages = Math.min(REPO_EVENT_PAGES, indexes.length - 1);
      shared = await repoStateEvents(deps.reads, repo, wanted, notBefore, maxPages).catch(
        (error: unknown) => {
          deps.onError(repo, null, error);
          return new Map<number, StateEvent>();
        },
      );
    }
    for (const i of indexes) {
      const issue = issues[i];
      if (issue === undefined) continue;
      try {
        const event = shared.get(issue.number) ?? (await lastStateEvent(deps.reads, repo, issue.number));
        out[i] = event === null ? null : await toChange(deps, event);
      } catch (error) {
        deps.onError(repo, issue.number, error);
      }
    }
  }
  return out;
}
