import type { HandlerDeps } from "./deps.js";
import { actorOf, isReply, issueOf, repoOf } from "./deps.js";
import type { Reply, RequestContext, Route } from "./router.js";
import type { IssueRecord, RepoRecord } from "./store.js";
import { AddLabelsBody, CreateLabelBody, parseBody } from "./bodies.js";
import { pagedReply } from "./pagination.js";
import { notFound, validationFailed } from "./replies.js";
import { label as labelShape } from "./shapes.js";

const DOCS_ADD = "https://docs.github.com/rest/issues/labels#add-labels-to-an-issue";
const DOCS_CREATE = "https://docs.github.com/rest/issues/labels#create-a-label";

export function labelRoutes(deps: HandlerDeps): Route[] {
  const { store } = deps;

  const labelsOfIssue = (r: RepoRecord, issue: IssueRecord): unknown[] =>
    issue.labels.map((name) => labelShape(deps.shape, r, store.ensureLabel(r, name)));

  function listIssueLabels(ctx: RequestContext): Reply {
    const found = issueOf(deps, ctx);
    if (isReply(found)) return found;
    return pagedReply(labelsOfIssue(found.r, found.issue), ctx.url, deps.perPageMax);
  }

  function addIssueLabels(ctx: RequestContext): Reply {
    const found = issueOf(deps, ctx);
    if (isReply(found)) return found;
    const parsed = parseBody(AddLabelsBody, ctx.body, "Label");
    if (!parsed.ok) return validationFailed(parsed.errors, DOCS_ADD);
    store.updateIssue(
      found.r,
      found.issue,
      { labels: [...found.issue.labels, ...parsed.value] },
      actorOf(ctx),
    );
    return { status: 200, body: labelsOfIssue(found.r, found.issue) };
  }

  /** Removes a label: 200 with the labels left, or 404 when the issue lacks it; an `unlabeled` event. */
  function removeIssueLabel(ctx: RequestContext): Reply {
    const found = issueOf(deps, ctx);
    if (isReply(found)) return found;
    const name = (ctx.params["name"] ?? "").toLowerCase();
    if (!found.issue.labels.some((l) => l.toLowerCase() === name)) return notFound();
    store.updateIssue(
      found.r,
      found.issue,
      { labels: found.issue.labels.filter((l) => l.toLowerCase() !== name) },
      actorOf(ctx),
    );
    return { status: 200, body: labelsOfIssue(found.r, found.issue) };
  }

  function listRepoLabels(ctx: RequestContext): Reply {
    const r = repoOf(deps, ctx);
    const all = [...r.labels.values()].map((l) => labelShape(deps.shape, r, l));
    return pagedReply(all, ctx.url, deps.perPageMax);
  }

  function createRepoLabel(ctx: RequestContext): Reply {
    const parsed = parseBody(CreateLabelBody, ctx.body, "Label");
    if (!parsed.ok) return validationFailed(parsed.errors, DOCS_CREATE);
    const r = repoOf(deps, ctx);
    if (store.findLabel(r, parsed.value.name)) {
      return validationFailed([{ resource: "Label", code: "already_exists", field: "name" }], DOCS_CREATE);
    }
    const l = store.ensureLabel(r, parsed.value.name, parsed.value.color, parsed.value.description ?? null);
    return {
      status: 201,
      body: labelShape(deps.shape, r, l),
      headers: {
        location: `${deps.shape.baseUrl}/repos/${r.owner}/${r.name}/labels/${encodeURIComponent(l.name)}`,
      },
    };
  }

  return [
    {
      method: "GET",
      pattern: "/repos/{owner}/{repo}/issues/{issue_number}/labels",
      auth: "token",
      handler: listIssueLabels,
    },
    {
      method: "POST",
      pattern: "/repos/{owner}/{repo}/issues/{issue_number}/labels",
      auth: "token",
      handler: addIssueLabels,
    },
    {
      method: "DELETE",
      pattern: "/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}",
      auth: "token",
      handler: removeIssueLabel,
    },
    { method: "GET", pattern: "/repos/{owner}/{repo}/labels", auth: "token", handler: listRepoLabels },
    { method: "POST", pattern: "/repos/{owner}/{repo}/labels", auth: "token", handler: createRepoLabel },
  ];
}
