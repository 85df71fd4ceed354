import type { HandlerDeps } from "./deps.js";
import { repoOf } from "./deps.js";
import type { Reply, RequestContext, Route } from "./router.js";
import type { CommentRecord, EventRecord } from "./store.js";
import { pagedReply } from "./pagination.js";
import { validationFailed } from "./replies.js";
import { comment as commentShape, event as eventShape, isoSeconds } from "./shapes.js";
import { renderIssue } from "./issue-render.js";

const DOCS_COMMENTS = "https://docs.github.com/rest/issues/comments#list-issue-comments-for-a-repository";

/** Repository-wide comments and events; matched before `/issues/{issue_number}`. */
export function repoActivityRoutes(deps: HandlerDeps): Route[] {
  const { store } = deps;

  function listComments(ctx: RequestContext): Reply {
    const r = repoOf(deps, ctx);
    const q = ctx.query;
    const sort = q.get("sort");
    const direction = q.get("direction");
    if (
      (sort !== null && sort !== "created" && sort !== "updated") ||
      (direction !== null && !["asc", "desc"].includes(direction))
    ) {
      return validationFailed(
        [{ resource: "IssueComment", code: "invalid", field: sort === null ? "direction" : "sort" }],
        DOCS_COMMENTS,
      );
    }
    const sinceRaw = q.get("since");
    const sinceMs = sinceRaw ? Date.parse(sinceRaw) : Number.NaN;
    const all: CommentRecord[] = [...r.comments.values()]
      .flat()
      .filter((c) => Number.isNaN(sinceMs) || isoSeconds(c.updatedAt) >= isoSeconds(sinceMs));
    // Without `sort` GitHub ignores `direction` and answers in ascending id order.
    const key = (c: CommentRecord): number => (sort === "updated" ? c.updatedAt : c.createdAt);
    const sign = sort !== null && direction === "desc" ? -1 : 1;
    all.sort((a, b) => sign * (key(a) - key(b) || a.id - b.id));
    return pagedReply(
      all.map((c) => commentShape(deps.shape, r, c)),
      ctx.url,
      deps.perPageMax,
    );
  }

  function listEvents(ctx: RequestContext): Reply {
    const r = repoOf(deps, ctx);
    // Newest first, each with the issue it belongs to, as GitHub answers this list.
    const all: EventRecord[] = [...r.events.values()].flat().sort((a, b) => b.id - a.id);
    const items = all.map((e) => {
      const issue = store.findIssue(r, e.issueNumber);
      const rendered = eventShape(deps.shape, r, e);
      if (issue) {
        rendered.issue = renderIssue(deps, r, issue, false);
      }
      return rendered;
    });
    return pagedReply(items, ctx.url, deps.perPageMax);
  }

  return [
    { method: "GET", pattern: "/repos/{owner}/{repo}/issues/comments", auth: "token", handler: listComments },
    { method: "GET", pattern: "/repos/{owner}/{repo}/issues/events", auth: "token", handler: listEvents },
  ];
}
