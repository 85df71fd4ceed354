import type { HandlerDeps } from "./deps.js";
import { actorOf, repoOf } from "./deps.js";
import type { Reply, RequestContext, Route } from "./router.js";
import type { MilestoneRecord, RepoRecord } from "./store.js";
import { CreateMilestoneBody, UpdateMilestoneBody, parseBody } from "./bodies.js";
import { milestoneCounts, renderMilestone } from "./issue-render.js";
import { pagedReply } from "./pagination.js";
import { notFound, validationFailed, type ValidationEntry } from "./replies.js";
import { pacificDateOf } from "./workflow-shapes.js";

const DOCS_LIST = "https://docs.github.com/rest/issues/milestones#list-milestones";
const DOCS_CREATE = "https://docs.github.com/rest/issues/milestones#create-a-milestone";
const DOCS_UPDATE = "https://docs.github.com/rest/issues/milestones#update-a-milestone";

const ALREADY_EXISTS: ValidationEntry = { resource: "Milestone", code: "already_exists", field: "title" };

function milestoneOf(r: RepoRecord, raw: string | undefined): MilestoneRecord | undefined {
  return /^\d+$/.test(raw ?? "") ? r.milestones?.[Number(raw) - 1] : undefined;
}

/** A title already used by another milestone of the repository (GitHub compares case-insensitively). */
function titleTaken(r: RepoRecord, title: string, except?: MilestoneRecord): boolean {
  const wanted = title.toLowerCase();
  return (r.milestones ?? []).some((m) => m !== except && m.title.toLowerCase() === wanted);
}

function dueDateOf(dueOn: string | null | undefined): string | null | undefined {
  if (dueOn === undefined || dueOn === null) return dueOn;
  return pacificDateOf(Date.parse(dueOn));
}

export function milestoneRoutes(deps: HandlerDeps): Route[] {
  const { clock } = deps;

  function list(ctx: RequestContext): Reply {
    const r = repoOf(deps, ctx);
    const q = ctx.query;
    const state = q.get("state") ?? "open";
    const sort = q.get("sort") ?? "due_on";
    const direction = q.get("direction") ?? "asc";
    const errors: ValidationEntry[] = [];
    if (!["open", "closed", "all"].includes(state))
      errors.push({ resource: "Milestone", code: "invalid", field: "state" });
    if (!["due_on", "completeness"].includes(sort))
      errors.push({ resource: "Milestone", code: "invalid", field: "sort" });
    if (!["asc", "desc"].includes(direction))
      errors.push({ resource: "Milestone", code: "invalid", field: "direction" });
    if (errors.length > 0) return validationFailed(errors, DOCS_LIST);
    const sign = direction === "asc" ? 1 : -1;
    const completeness = (m: MilestoneRecord): number => {
      const c = milestoneCounts(r, m.number);
      return c.open + c.closed === 0 ? 0 : c.closed / (c.open + c.closed);
    };
    const selected = (r.milestones ?? [])
      .filter((m) => state === "all" || m.state === state)
      .sort((a, b) => {
        if (sort === "completeness") return sign * (completeness(a) - completeness(b)) || a.number - b.number;
        // Milestones without a due date come last either way.
        if (a.dueDate === null || b.dueDate === null)
          return (a.dueDate === null ? 1 : 0) - (b.dueDate === null ? 1 : 0) || a.number - b.number;
        return sign * a.dueDate.localeCompare(b.dueDate) || a.number - b.number;
      });
    return pagedReply(
      selected.map((m) => renderMilestone(deps, r, m)),
      ctx.url,
      deps.perPageMax,
    );
  }

  function create(ctx: RequestContext): Reply {
    const parsed = parseBody(CreateMilestoneBody, ctx.body, "Milestone");
    if (!parsed.ok) return validationFailed(parsed.errors, DOCS_CREATE);
    const b = parsed.value;
    const r = repoOf(deps, ctx);
    if (titleTaken(r, b.title)) return validationFailed([ALREADY_EXISTS], DOCS_CREATE);
    const now = clock.now();
    const milestones = (r.milestones ??= []);
    const state = b.state ?? "open";
    const m: MilestoneRecord = {
      id: deps.store.newId(),
      number: milestones.length + 1,
      title: b.title,
      description: b.description ?? null,
      state,
      dueDate: dueDateOf(b.due_on) ?? null,
      creator: actorOf(ctx).login,
      createdAt: now,
      updatedAt: now,
      closedAt: state === "closed" ? now : null,
    };
    milestones.push(m);
    return {
      status: 201,
      body: renderMilestone(deps, r, m),
      headers: { location: `${deps.shape.baseUrl}/repos/${r.owner}/${r.name}/milestones/${m.number}` },
    };
  }

  function get(ctx: RequestContext): Reply {
    const r = repoOf(deps, ctx);
    const m = milestoneOf(r, ctx.params["milestone_number"]);
    return m ? { status: 200, body: renderMilestone(deps, r, m) } : notFound();
  }

  function update(ctx: RequestContext): Reply {
    const r = repoOf(deps, ctx);
    const m = milestoneOf(r, ctx.params["milestone_number"]);
    if (!m) return notFound();
    const parsed = parseBody(UpdateMilestoneBody, ctx.body, "Milestone");
    if (!parsed.ok) return validationFailed(parsed.errors, DOCS_UPDATE);
    const b = parsed.value;
    if (b.title !== undefined && titleTaken(r, b.title, m))
      return validationFailed([ALREADY_EXISTS], DOCS_UPDATE);
    const now = clock.now();
    if (b.title !== undefined) m.title = b.title;
    if (b.description !== undefined) m.description = b.description;
    const due = dueDateOf(b.due_on);
    if (due !== undefined) m.dueDate = due;
    if (b.state !== undefined && b.state !== m.state) {
      m.state = b.state;
      m.closedAt = b.state === "closed" ? now : null;
    }
    m.updatedAt = now;
    return { status: 200, body: renderMilestone(deps, r, m) };
  }

  const base = "/repos/{owner}/{repo}/milestones";
  return [
    { method: "GET", pattern: base, auth: "token", handler: list },
    { method: "POST", pattern: base, auth: "token", handler: create },
    { method: "GET", pattern: `${base}/{milestone_number}`, auth: "token", handler: get },
    { method: "PATCH", pattern: `${base}/{milestone_number}`, auth: "token", handler: update },
  ];
}
