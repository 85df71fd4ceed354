import type { HandlerDeps } from "./deps.js";
import { isReply, issueOf } from "./deps.js";
import type { Reply, RequestContext, Route } from "./router.js";
import type { IssueRecord, RepoRecord } from "./store.js";
import { AddSubIssueBody, RemoveSubIssueBody, parseBody } from "./bodies.js";
import { renderIssue, subIssuesOf } from "./issue-render.js";
import { pagedReply } from "./pagination.js";
import { notFound, validationFailed } from "./replies.js";

const DOCS_ADD = "https://docs.github.com/rest/issues/sub-issues#add-sub-issue";
/** GitHub's limit on the sub-issues of one parent. */
const MAX_SUB_ISSUES = 100;

const refused = (message: string): Reply =>
  validationFailed([{ resource: "Issue", code: "custom", field: "sub_issue_id", message }], DOCS_ADD);

/** Whether `candidate` is `issue` or one of its ancestors (adding it below `issue` would make a loop). */
function isSelfOrAncestor(deps: HandlerDeps, issue: IssueRecord, candidate: IssueRecord): boolean {
  let at: IssueRecord | undefined = issue;
  for (let depth = 0; at !== undefined && depth < 1000; depth++) {
    if (at.id === candidate.id) return true;
    at = at.parentId === undefined ? undefined : deps.store.issueById(at.parentId)?.issue;
  }
  return false;
}

/** GitHub's sub-issues: children by issue id, one parent each, 100 a parent; 404 where there are none. */
export function subIssueRoutes(deps: HandlerDeps): Route[] {
  const { store, clock } = deps;

  /** The issue of the path, or the reply when the feature or the issue is missing. */
  function parentOf(ctx: RequestContext): { r: RepoRecord; issue: IssueRecord } | Reply {
    if (!deps.features.subIssuesIn(ctx.params["owner"] ?? "", ctx.params["repo"] ?? "")) return notFound();
    return issueOf(deps, ctx);
  }

  function touch(...issues: IssueRecord[]): void {
    const now = clock.now();
    for (const i of issues) i.updatedAt = now;
  }

  function detach(child: IssueRecord): IssueRecord | undefined {
    if (child.parentId === undefined) return undefined;
    const old = store.issueById(child.parentId)?.issue;
    if (old) old.subIssueIds = (old.subIssueIds ?? []).filter((id) => id !== child.id);
    delete child.parentId;
    return old;
  }

  function add(ctx: RequestContext): Reply {
    const found = parentOf(ctx);
    if (isReply(found)) return found;
    const parsed = parseBody(AddSubIssueBody, ctx.body, "Issue");
    if (!parsed.ok) return validationFailed(parsed.errors, DOCS_ADD);
    const { sub_issue_id: childId, replace_parent: replace } = parsed.value;
    const parent = found.issue;
    const child = store.issueById(childId);
    if (!child || child.issue.deleted || child.issue.movedTo || child.issue.isPullRequest)
      return validationFailed([{ resource: "Issue", code: "invalid", field: "sub_issue_id" }], DOCS_ADD);
    if (child.r.owner.toLowerCase() !== found.r.owner.toLowerCase())
      return refused("Sub issue must belong to the same repository owner as the parent issue");
    if (isSelfOrAncestor(deps, parent, child.issue))
      return refused("An issue cannot be a sub-issue of itself or of its own sub-issues");
    if (child.issue.parentId === parent.id) return refused("Issue may not contain duplicate sub-issues");
    if (child.issue.parentId !== undefined && replace !== true)
      return refused("Sub issue may only have one parent");
    if (subIssuesOf(deps, parent).length >= MAX_SUB_ISSUES)
      return refused(`Parent cannot have more than ${MAX_SUB_ISSUES} sub-issues`);
    const old = detach(child.issue);
    parent.subIssueIds = [...(parent.subIssueIds ?? []), child.issue.id];
    child.issue.parentId = parent.id;
    touch(parent, child.issue, ...(old ? [old] : []));
    const r = found.r;
    return {
      status: 201,
      body: renderIssue(deps, r, parent, true),
      headers: {
        location: `${deps.shape.baseUrl}/repos/${r.owner}/${r.name}/issues/${parent.number}/sub_issues`,
      },
    };
  }

  function list(ctx: RequestContext): Reply {
    const found = parentOf(ctx);
    if (isReply(found)) return found;
    const subs = subIssuesOf(deps, found.issue).map((s) => renderIssue(deps, s.r, s.issue, false));
    return pagedReply(subs, ctx.url, deps.perPageMax);
  }

  function remove(ctx: RequestContext): Reply {
    const found = parentOf(ctx);
    if (isReply(found)) return found;
    const parsed = parseBody(RemoveSubIssueBody, ctx.body, "Issue");
    if (!parsed.ok) return validationFailed(parsed.errors, DOCS_ADD);
    const child = store.issueById(parsed.value.sub_issue_id);
    if (!child || child.issue.parentId !== found.issue.id) return notFound();
    detach(child.issue);
    touch(found.issue, child.issue);
    return { status: 200, body: renderIssue(deps, found.r, found.issue, true) };
  }

  function parent(ctx: RequestContext): Reply {
    const found = parentOf(ctx);
    if (isReply(found)) return found;
    const up = found.issue.parentId === undefined ? undefined : store.issueById(found.issue.parentId);
    // An issue without a parent answers 404, as on GitHub.
    if (!up || up.issue.deleted || up.issue.movedTo) return notFound();
    return { status: 200, body: renderIssue(deps, up.r, up.issue, true) };
  }

  const base = "/repos/{owner}/{repo}/issues/{issue_number}";
  return [
    { method: "GET", pattern: `${base}/sub_issues`, auth: "token", handler: list },
    { method: "POST", pattern: `${base}/sub_issues`, auth: "token", handler: add },
    { method: "DELETE", pattern: `${base}/sub_issue`, auth: "token", handler: remove },
    { method: "GET", pattern: `${base}/parent`, auth: "token", handler: parent },
  ];
}
