import type { HandlerDeps } from "./deps.js";
import type { Reply, RequestContext, Route } from "./router.js";
import { notFound } from "./replies.js";
import { issueType } from "./workflow-shapes.js";

/** GitHub's issue types of an organization and of a repository; 404 where issue types do not exist. */
export function issueTypeRoutes(deps: HandlerDeps): Route[] {
  function ofOrg(ctx: RequestContext): Reply {
    const org = ctx.params["org"] ?? "";
    const types = deps.features.issueTypesOf(org);
    if (types === null || !deps.features.hasIssueTypes(org)) return notFound();
    return { status: 200, body: types.map(issueType) };
  }

  function ofRepo(ctx: RequestContext): Reply {
    const types = deps.features.issueTypesOf(ctx.params["owner"] ?? "");
    if (types === null) return notFound();
    return { status: 200, body: types.map(issueType) };
  }

  return [
    { method: "GET", pattern: "/orgs/{org}/issue-types", auth: "token", handler: ofOrg },
    { method: "GET", pattern: "/repos/{owner}/{repo}/issue-types", auth: "token", handler: ofRepo },
  ];
}
