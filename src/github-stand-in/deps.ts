import type { Clock } from "../shared/clock.js";
import type { Reply, RequestContext } from "./router.js";
import type { ShapeContext } from "./shapes.js";
import type { Actor, IssueRecord, RepoRecord, Store } from "./store.js";
import { StandInError } from "./errors.js";
import { gone, movedPermanently, notFound } from "./replies.js";
import type { RepoDirectory } from "./repo-settings.js";
import type { Features } from "./features.js";
import type { ProjectStore } from "./project-store.js";

/** What the route handlers share; built once per running stand-in. */
export interface HandlerDeps {
  store: Store;
  shape: ShapeContext;
  clock: Clock;
  perPageMax: number;
  /** Repositories that exist and their settings; null: all exist (see repo-settings.ts). */
  repositories: RepoDirectory;
  /** Sub-issues and issue types, where they exist (features.ts). */
  features: Features;
  /** Projects (the current kind), per owner (project-store.ts). */
  projects: ProjectStore;
}

export function repoOf(deps: HandlerDeps, ctx: RequestContext): RepoRecord {
  return deps.store.repo(ctx.params["owner"] ?? "", ctx.params["repo"] ?? "");
}

/** The issue named by `{issue_number}`, or a 404 reply. */
export function issueOf(
  deps: HandlerDeps,
  ctx: RequestContext,
): { r: RepoRecord; issue: IssueRecord } | Reply {
  const r = repoOf(deps, ctx);
  const raw = ctx.params["issue_number"] ?? "";
  const issue = /^\d+$/.test(raw) ? deps.store.findIssue(r, Number(raw)) : undefined;
  if (!issue) return notFound();
  // A deleted issue answers 410 and a transferred one 301 to its new place, as on GitHub.
  if (issue.deleted) return gone();
  if (issue.movedTo) {
    const { owner, name, number } = issue.movedTo;
    const rest = ctx.url.pathname.replace(/^\/repos\/[^/]+\/[^/]+\/issues\/\d+/, "");
    return movedPermanently(`${deps.shape.baseUrl}/repos/${owner}/${name}/issues/${number}${rest}`);
  }
  return { r, issue };
}

export function isReply(x: object): x is Reply {
  return "status" in x;
}

/** Routes with `auth: "token"` always carry an actor; this keeps handlers free of null checks. */
export function actorOf(ctx: RequestContext): Actor {
  if (!ctx.actor) throw new StandInError("no_actor", "token route reached without an actor");
  return ctx.actor;
}
