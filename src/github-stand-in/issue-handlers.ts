import type { HandlerDeps } from "./deps.js";
import { actorOf, isReply, issueOf, repoOf } from "./deps.js";
import type { Reply, RequestContext, Route } from "./router.js";
import type { IssueRecord, RepoRecord } from "./store.js";
import { CreateIssueBody, UpdateIssueBody, lengthErrors, parseBody } from "./bodies.js";
import { paginate } from "./pagination.js";
import { validationFailed, type ValidationEntry } from "./replies.js";
import { resolveWorkflowFields } from "./issue-fields.js";
import { renderIssue } from "./issue-render.js";

const DOCS_LIST = "https://docs.github.com/rest/issues/issues#list-repository-issues";
const DOCS_CREATE = "https://docs.github.com/rest/issues/issues#create-an-issue";
const DOCS_UPDATE = "https://docs.github.com/rest/issues/issues#update-an-issue";

interface ListFilter {
  state: "open" | "closed" | "all";
  labels: string[];
  /** `since` in whole seconds (GitHub compares at second precision). */
  sinceSec: number | null;
  sort: "created" | "updated" | "comments";
  direction: "asc" | "desc";
  creator: string | null;
  assignee: string | null;
}

function enumParam<T extends string>(
  q: URLSearchParams,
  name: string,
  allowed: readonly T[],
  fallback: T,
  errors: ValidationEntry[],
): T {
  const raw = q.get(name);
  if (raw === null || raw === "") return fallback;
  const found = allowed.find((a) => a === raw);
  if (found === undefined) errors.push({ resource: "Issue", code: "invalid", field: name });
  return found ?? fallback;
}

function parseFilter(q: URLSearchParams): ListFilter | ValidationEntry[] {
  const errors: ValidationEntry[] = [];
  const state = enumParam(q, "state", ["open", "closed", "all"] as const, "open", errors);
  const sort = enumParam(q, "sort", ["created", "updated", "comments"] as const, "created", errors);
  const direction = enumParam(q, "direction", ["asc", "desc"] as const, "desc", errors);
  const sinceRaw = q.get("since");
  let sinceSec: number | null = null;
  if (sinceRaw !== null && sinceRaw !== "") {
    const ms = Date.parse(sinceRaw);
    if (Number.isNaN(ms)) errors.push({ resource: "Issue", code: "invalid", field: "since" });
    else sinceSec = Math.floor(ms / 1000);
  }
  const labels = (q.get("labels") ?? "")
    .split(",")
    .map((l) => l.trim().toLowerCase())
    .filter((l) => l !== "");
  if (errors.length > 0) return errors;
  return { state, labels, sinceSec, sort, direction, creator: q.get("creator"), assignee: q.get("assignee") };
}

function matches(i: IssueRecord, f: ListFilter): boolean {
  if (i.deleted || i.movedTo) return false;
  if (f.state !== "all" && i.state !== f.state) return false;
  // `since` compares at GitHub's second precision (updated_at >= since), as numbers.
  if (f.sinceSec !== null && Math.floor(i.updatedAt / 1000) < f.sinceSec) return false;
  if (f.labels.length > 0) {
    const have = i.labels.map((l) => l.toLowerCase());
    if (!f.labels.every((l) => have.includes(l))) return false;
  }
  if (f.creator !== null && i.user.toLowerCase() !== f.creator.toLowerCase()) return false;
  if (f.assignee === "none" && i.assignees.length > 0) return false;
  if (f.assignee === "*" && i.assignees.length === 0) return false;
  if (f.assignee !== null && f.assignee !== "none" && f.assignee !== "*") {
    if (!i.assignees.some((a) => a.toLowerCase() === f.assignee?.toLowerCase())) return false;
  }
  return true;
}

export function issueRoutes(deps: HandlerDeps): Route[] {
  const { store } = deps;
  const render = (r: RepoRecord, i: IssueRecord, single: boolean): unknown => renderIssue(deps, r, i, single);

  function list(ctx: RequestContext): Reply {
    const r = repoOf(deps, ctx);
    const filter = parseFilter(ctx.query);
    if (Array.isArray(filter)) return validationFailed(filter, DOCS_LIST);
    const key = (i: IssueRecord): number =>
      filter.sort === "created"
        ? i.createdAt
        : filter.sort === "updated"
          ? i.updatedAt
          : store.commentsOf(r, i.number).length;
    const sign = filter.direction === "asc" ? 1 : -1;
    const selected = r.issues
      .filter((i) => matches(i, filter))
      .sort((a, b) => sign * (key(a) - key(b) || a.number - b.number));
    const page = paginate(selected, ctx.url, deps.perPageMax);
    // Only the page is rendered: big repositories stay cheap to list.
    return {
      status: 200,
      body: page.items.map((i) => render(r, i, false)),
      ...(page.link === undefined ? {} : { headers: { link: page.link } }),
    };
  }

  function create(ctx: RequestContext): Reply {
    const parsed = parseBody(CreateIssueBody, ctx.body, "Issue");
    if (!parsed.ok) return validationFailed(parsed.errors, DOCS_CREATE);
    const b = parsed.value;
    const tooLong = lengthErrors("Issue", { title: b.title, body: b.body ?? null });
    if (tooLong.length > 0) return validationFailed(tooLong, DOCS_CREATE);
    const r = repoOf(deps, ctx);
    const fields = resolveWorkflowFields(deps, r, { milestone: b.milestone, type: b.type });
    if (!fields.ok) return validationFailed(fields.errors, DOCS_CREATE);
    const assignees = [...(b.assignees ?? []), ...(b.assignee ? [b.assignee] : [])];
    // Unknown label names are created on the fly, as GitHub does for callers with push access.
    const created = store.createIssue(
      r,
      {
        title: b.title,
        body: b.body ?? null,
        labels: b.labels ?? [],
        assignees,
        isPullRequest: false,
        ...(typeof fields.value.milestone === "number" ? { milestone: fields.value.milestone } : {}),
        ...(typeof fields.value.type === "string" ? { type: fields.value.type } : {}),
      },
      actorOf(ctx),
    );
    const body = render(r, created, true);
    return {
      status: 201,
      body,
      headers: { location: `${deps.shape.baseUrl}/repos/${r.owner}/${r.name}/issues/${created.number}` },
    };
  }

  function get(ctx: RequestContext): Reply {
    const found = issueOf(deps, ctx);
    if (isReply(found)) return found;
    return { status: 200, body: render(found.r, found.issue, true) };
  }

  function update(ctx: RequestContext): Reply {
    const found = issueOf(deps, ctx);
    if (isReply(found)) return found;
    const parsed = parseBody(UpdateIssueBody, ctx.body, "Issue");
    if (!parsed.ok) return validationFailed(parsed.errors, DOCS_UPDATE);
    const b = parsed.value;
    const tooLong = lengthErrors("Issue", {
      ...(b.title === undefined ? {} : { title: b.title }),
      body: b.body ?? null,
    });
    if (b.state === "closed" && b.state_reason === "reopened") {
      tooLong.push({ resource: "Issue", code: "invalid", field: "state_reason" });
    }
    if (tooLong.length > 0) return validationFailed(tooLong, DOCS_UPDATE);
    const fields = resolveWorkflowFields(deps, found.r, { milestone: b.milestone, type: b.type });
    if (!fields.ok) return validationFailed(fields.errors, DOCS_UPDATE);
    store.updateIssue(
      found.r,
      found.issue,
      {
        ...(b.title === undefined ? {} : { title: b.title }),
        ...(b.body === undefined ? {} : { body: b.body }),
        ...(b.state === undefined ? {} : { state: b.state }),
        ...(b.state_reason === undefined ? {} : { stateReason: b.state_reason }),
        ...(b.labels === undefined ? {} : { labels: b.labels }),
        ...(b.assignees === undefined ? {} : { assignees: b.assignees }),
        ...(fields.value.milestone === undefined ? {} : { milestone: fields.value.milestone }),
        ...(fields.value.type === undefined ? {} : { type: fields.value.type }),
      },
      actorOf(ctx),
    );
    return { status: 200, body: render(found.r, found.issue, true) };
  }

  const base = "/repos/{owner}/{repo}/issues";
  return [
    { method: "GET", pattern: base, auth: "token", handler: list },
    { method: "POST", pattern: base, auth: "token", handler: create },
    { method: "GET", pattern: `${base}/{issue_number}`, auth: "token", handler: get },
    { method: "PATCH", pattern: `${base}/{issue_number}`, auth: "token", handler: update },
  ];
}
