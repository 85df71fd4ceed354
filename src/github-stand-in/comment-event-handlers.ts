import type { HandlerDeps } from "./deps.js";
import { actorOf, isReply, issueOf } from "./deps.js";
import type { Reply, RequestContext, Route } from "./router.js";
import { CreateCommentBody, lengthErrors, parseBody } from "./bodies.js";
import { pagedReply } from "./pagination.js";
import { forbidden, validationFailed } from "./replies.js";
import { comment as commentShape, event as eventShape, isoSeconds } from "./shapes.js";

const DOCS_COMMENT = "https://docs.github.com/rest/issues/comments#create-an-issue-comment";

export function commentEventRoutes(deps: HandlerDeps): Route[] {
  const { store } = deps;

  function listComments(ctx: RequestContext): Reply {
    const found = issueOf(deps, ctx);
    if (isReply(found)) return found;
    const sinceRaw = ctx.query.get("since");
    const sinceMs = sinceRaw ? Date.parse(sinceRaw) : Number.NaN;
    const all = store
      .commentsOf(found.r, found.issue.number)
      .filter((c) => Number.isNaN(sinceMs) || isoSeconds(c.updatedAt) >= isoSeconds(sinceMs))
      .map((c) => commentShape(deps.shape, found.r, c));
    return pagedReply(all, ctx.url, deps.perPageMax);
  }

  function createComment(ctx: RequestContext): Reply {
    const found = issueOf(deps, ctx);
    if (isReply(found)) return found;
    if (found.issue.locked) return forbidden("Unable to create comment because issue is locked.");
    const parsed = parseBody(CreateCommentBody, ctx.body, "IssueComment");
    if (!parsed.ok) return validationFailed(parsed.errors, DOCS_COMMENT);
    const tooLong = lengthErrors("IssueComment", { body: parsed.value.body });
    if (tooLong.length > 0) return validationFailed(tooLong, DOCS_COMMENT);
    const c = store.addComment(found.r, found.issue, parsed.value.body, actorOf(ctx));
    return {
      status: 201,
      body: commentShape(deps.shape, found.r, c),
      headers: {
        location: `${deps.shape.baseUrl}/repos/${found.r.owner}/${found.r.name}/issues/comments/${c.id}`,
      },
    };
  }

  function listEvents(ctx: RequestContext): Reply {
    const found = issueOf(deps, ctx);
    if (isReply(found)) return found;
    const all = store.eventsOf(found.r, found.issue.number).map((e) => eventShape(deps.shape, found.r, e));
    return pagedReply(all, ctx.url, deps.perPageMax);
  }

  const base = "/repos/{owner}/{repo}/issues/{issue_number}";
  return [
    { method: "GET", pattern: `${base}/comments`, auth: "token", handler: listComments },
    { method: "POST", pattern: `${base}/comments`, auth: "token", handler: createComment },
    { method: "GET", pattern: `${base}/events`, auth: "token", handler: listEvents },
  ];
}
