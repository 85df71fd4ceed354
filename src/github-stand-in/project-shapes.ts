import type { HandlerDeps } from "./deps.js";
import { renderIssue } from "./issue-render.js";
import type { ProjectFieldRecord, ProjectItemRecord, ProjectRecord, ProjectValue } from "./project-store.js";
import type { Reply } from "./router.js";
import { isoSeconds, user } from "./shapes.js";

/** The project's API path: `/orgs/{org}/projectsV2/{n}` or `/users/{username}/projectsV2/{n}`. */
export function projectPath(deps: HandlerDeps, p: ProjectRecord): string {
  return `${deps.shape.baseUrl}/${p.ownerType === "org" ? "orgs" : "users"}/${p.owner}/projectsV2/${p.number}`;
}

const nodeId = (prefix: string, id: number): string =>
  `${prefix}_${Buffer.from(String(id)).toString("base64")}`;
const text = (s: string): { raw: string; html: string } => ({ raw: s, html: s });

export function projectShape(deps: HandlerDeps, p: ProjectRecord): Record<string, unknown> {
  return {
    id: p.id,
    node_id: nodeId("PVT", p.id),
    owner: user(deps.shape, p.owner),
    creator: user(deps.shape, p.creator),
    title: p.title,
    description: null,
    public: false,
    closed_at: null,
    created_at: isoSeconds(p.createdAt),
    updated_at: isoSeconds(p.updatedAt),
    number: p.number,
    short_description: null,
    deleted_at: null,
    deleted_by: null,
    state: "open",
    is_template: false,
  };
}

export function fieldShape(
  deps: HandlerDeps,
  p: ProjectRecord,
  f: ProjectFieldRecord,
): Record<string, unknown> {
  return {
    id: f.id,
    node_id: nodeId("PVTF", f.id),
    project_url: projectPath(deps, p),
    name: f.name,
    data_type: f.dataType,
    ...(f.dataType === "single_select"
      ? {
          options: f.options.map((o) => ({
            id: o.id,
            name: text(o.name),
            description: text(""),
            color: "GRAY",
          })),
        }
      : {}),
    created_at: isoSeconds(f.createdAt),
    updated_at: isoSeconds(f.createdAt),
  };
}

/** A field's value as GitHub renders it in an item's `fields`: an option is its whole record. */
function valueShape(f: ProjectFieldRecord, value: ProjectValue | undefined): unknown {
  if (value === undefined) return null;
  if (f.dataType !== "single_select") return value;
  const option = f.options.find((o) => o.id === value);
  return option ? { id: option.id, name: text(option.name), color: "GRAY", description: text("") } : null;
}

function content(deps: HandlerDeps, item: ProjectItemRecord): Record<string, unknown> | null {
  const found = deps.store.issueById(item.issueId);
  return found ? { ...renderIssue(deps, found.r, found.issue, false) } : null;
}

function common(deps: HandlerDeps, p: ProjectRecord, item: ProjectItemRecord): Record<string, unknown> {
  return {
    id: item.id,
    node_id: nodeId("PVTI", item.id),
    project_url: projectPath(deps, p),
    item_url: `${projectPath(deps, p)}/items/${item.id}`,
    content_type: "Issue",
    creator: user(deps.shape, item.creator),
    created_at: isoSeconds(item.createdAt),
    updated_at: isoSeconds(item.updatedAt),
    archived_at: null,
  };
}

/** The answer to an add (`projects-v2-item-simple`). */
export function itemSimpleShape(deps: HandlerDeps, p: ProjectRecord, item: ProjectItemRecord): unknown {
  const c = content(deps, item);
  return { ...common(deps, p, item), ...(c === null ? {} : { content: c }) };
}

/** An item as the item routes answer it, with the title and the fields `?fields=` names. */
export function itemShape(
  deps: HandlerDeps,
  p: ProjectRecord,
  item: ProjectItemRecord,
  wanted: ReadonlySet<number>,
): unknown {
  const issue = content(deps, item);
  const fields = p.fields
    .filter((f) => f.dataType === "title" || wanted.has(f.id))
    .map((f) => ({
      id: f.id,
      name: f.name,
      data_type: f.dataType,
      value:
        f.dataType === "title"
          ? { raw: String(issue?.["title"] ?? ""), html: String(issue?.["title"] ?? "") }
          : valueShape(f, item.values.get(f.id)),
    }));
  return { ...common(deps, p, item), content: issue, fields };
}

/** The field ids of `?fields=1,2` or `?fields[]=1&fields[]=2`. */
export function wantedFields(query: URLSearchParams): Set<number> {
  const raw = [...query.getAll("fields"), ...query.getAll("fields[]")].flatMap((v) => v.split(","));
  return new Set(raw.filter((v) => /^\d+$/.test(v.trim())).map((v) => Number(v.trim())));
}

/** Cursor pagination (`before`/`after`), opaque cursors in the `Link` header, as GitHub pages projects. */
export function cursorReply(all: readonly unknown[], url: URL, perPageMax: number): Reply {
  const perRaw = url.searchParams.get("per_page");
  const perPage = Math.min(
    perRaw !== null && /^\d+$/.test(perRaw) && Number(perRaw) > 0 ? Number(perRaw) : 30,
    perPageMax,
  );
  const decode = (c: string | null): number | null => {
    if (c === null) return null;
    const n = Number(Buffer.from(c, "base64url").toString("utf8"));
    return Number.isInteger(n) && n >= 0 ? n : null;
  };
  const after = decode(url.searchParams.get("after"));
  const before = decode(url.searchParams.get("before"));
  const start = after !== null ? after + 1 : before !== null ? Math.max(0, before - perPage) : 0;
  const end = Math.min(all.length, before !== null && after === null ? before : start + perPage);
  const rels: string[] = [];
  const link = (rel: string, name: "after" | "before", at: number): void => {
    const u = new URL(url.href);
    u.searchParams.delete("after");
    u.searchParams.delete("before");
    u.searchParams.set(name, Buffer.from(String(at)).toString("base64url"));
    rels.push(`<${u.href}>; rel="${rel}"`);
  };
  if (end < all.length) link("next", "after", end - 1);
  if (start > 0) link("prev", "before", start);
  return {
    status: 200,
    body: all.slice(start, end),
    ...(rels.length > 0 ? { headers: { link: rels.join(", ") } } : {}),
  };
}
