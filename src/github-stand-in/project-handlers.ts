import { z } from "zod";
import type { HandlerDeps } from "./deps.js";
import { actorOf, isReply } from "./deps.js";
import { parseBody } from "./bodies.js";
import type { ProjectFieldRecord, ProjectOwnerType, ProjectRecord, ProjectValue } from "./project-store.js";
import {
  cursorReply,
  fieldShape,
  itemShape,
  itemSimpleShape,
  projectShape,
  wantedFields,
} from "./project-shapes.js";
import { notFound, validationFailed, type ValidationEntry } from "./replies.js";
import type { Reply, RequestContext, Route } from "./router.js";

const DOCS = "https://docs.github.com/rest/projects/items";

const AddItemBody = z.union([
  z.object({ type: z.enum(["Issue", "PullRequest"]), id: z.number().int() }).strict(),
  z
    .object({
      type: z.enum(["Issue", "PullRequest"]),
      owner: z.string(),
      repo: z.string(),
      number: z.number().int(),
    })
    .strict(),
]);

const UpdateItemBody = z.object({
  fields: z
    .array(z.object({ id: z.number().int(), value: z.union([z.string(), z.number()]).nullable() }))
    .min(1),
});

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Why GitHub would refuse `value` for `field`, or null when it takes it. */
function refusal(
  field: ProjectFieldRecord | undefined,
  id: number,
  value: ProjectValue | null,
): string | null {
  if (!field) return `Field ${id} does not exist in this project`;
  if (field.dataType === "title") return `Field ${field.name} cannot be updated`;
  if (value === null) return null;
  switch (field.dataType) {
    case "text":
      return typeof value === "string" ? null : `Field ${field.name} expects a text value`;
    case "number":
      return typeof value === "number" && Number.isFinite(value)
        ? null
        : `Field ${field.name} expects a number`;
    case "date":
      return typeof value === "string" && DATE.test(value) && !Number.isNaN(Date.parse(value))
        ? null
        : `Field ${field.name} expects a date (YYYY-MM-DD)`;
    case "single_select":
      return typeof value === "string" && field.options.some((o) => o.id === value)
        ? null
        : `Option ${String(value)} does not exist in field ${field.name}`;
  }
}

/** GitHub's REST API for projects (org and user): the project, its fields and items; 404 everywhere when off. */
export function projectRoutes(deps: HandlerDeps): Route[] {
  const { projects, store } = deps;

  function projectOf(ctx: RequestContext, ownerType: ProjectOwnerType): ProjectRecord | Reply {
    if (!deps.features.projectsOn()) return notFound();
    const owner = ctx.params[ownerType === "org" ? "org" : "username"] ?? "";
    const raw = ctx.params["project_number"] ?? "";
    const p = /^\d+$/.test(raw) ? projects.find(ownerType, owner, Number(raw)) : undefined;
    return p ?? notFound();
  }

  function itemOf(ctx: RequestContext, p: ProjectRecord) {
    const raw = ctx.params["item_id"] ?? "";
    const item = /^\d+$/.test(raw) ? p.items.find((i) => i.id === Number(raw)) : undefined;
    return item && store.issueById(item.issueId) ? item : undefined;
  }

  const routes = (ownerType: ProjectOwnerType): Route[] => {
    const get = (ctx: RequestContext): Reply => {
      const p = projectOf(ctx, ownerType);
      return isReply(p) ? p : { status: 200, body: projectShape(deps, p) };
    };
    const fields = (ctx: RequestContext): Reply => {
      const p = projectOf(ctx, ownerType);
      if (isReply(p)) return p;
      return cursorReply(
        p.fields.map((f) => fieldShape(deps, p, f)),
        ctx.url,
        deps.perPageMax,
      );
    };
    const listItems = (ctx: RequestContext): Reply => {
      const p = projectOf(ctx, ownerType);
      if (isReply(p)) return p;
      const wanted = wantedFields(ctx.query);
      // `q` (GitHub's board filter syntax) is not modelled: every item is listed.
      const live = p.items.filter((i) => store.issueById(i.issueId) !== undefined);
      return cursorReply(
        live.map((i) => itemShape(deps, p, i, wanted)),
        ctx.url,
        deps.perPageMax,
      );
    };
    const add = (ctx: RequestContext): Reply => {
      const p = projectOf(ctx, ownerType);
      if (isReply(p)) return p;
      const parsed = parseBody(AddItemBody, ctx.body, "ProjectV2Item");
      if (!parsed.ok) return validationFailed(parsed.errors, DOCS);
      const body = parsed.value;
      const found =
        "id" in body
          ? store.issueById(body.id)
          : (() => {
              const r = store.repo(body.owner, body.repo);
              const issue = store.findIssue(r, body.number);
              return issue ? { r, issue } : undefined;
            })();
      const wrongKind = found !== undefined && found.issue.isPullRequest !== (body.type === "PullRequest");
      if (!found || found.issue.deleted || found.issue.movedTo || wrongKind)
        return validationFailed([{ resource: "ProjectV2Item", code: "invalid", field: "id" }], DOCS);
      const item = projects.addItem(p, found.issue.id, actorOf(ctx).login);
      return { status: 201, body: itemSimpleShape(deps, p, item) };
    };
    const getItem = (ctx: RequestContext): Reply => {
      const p = projectOf(ctx, ownerType);
      if (isReply(p)) return p;
      const item = itemOf(ctx, p);
      return item ? { status: 200, body: itemShape(deps, p, item, wantedFields(ctx.query)) } : notFound();
    };
    const update = (ctx: RequestContext): Reply => {
      const p = projectOf(ctx, ownerType);
      if (isReply(p)) return p;
      const item = itemOf(ctx, p);
      if (!item) return notFound();
      const parsed = parseBody(UpdateItemBody, ctx.body, "ProjectV2Item");
      if (!parsed.ok) return validationFailed(parsed.errors, DOCS);
      const errors: ValidationEntry[] = [];
      for (const { id, value } of parsed.value.fields) {
        const why = refusal(
          p.fields.find((f) => f.id === id),
          id,
          value,
        );
        if (why !== null)
          errors.push({ resource: "ProjectV2ItemFieldValue", code: "invalid", field: "value", message: why });
      }
      // All or nothing: one refused value leaves every field of the item as it was.
      if (errors.length > 0) return validationFailed(errors, DOCS);
      for (const { id, value } of parsed.value.fields) projects.setValue(p, item, id, value);
      const changed = new Set(parsed.value.fields.map((f) => f.id));
      return { status: 200, body: itemShape(deps, p, item, changed) };
    };
    const remove = (ctx: RequestContext): Reply => {
      const p = projectOf(ctx, ownerType);
      if (isReply(p)) return p;
      const item = itemOf(ctx, p);
      if (!item) return notFound();
      p.items = p.items.filter((i) => i !== item);
      return { status: 204 };
    };
    const base = `/${ownerType === "org" ? "orgs/{org}" : "users/{username}"}/projectsV2/{project_number}`;
    return [
      { method: "GET", pattern: base, auth: "token", handler: get },
      { method: "GET", pattern: `${base}/fields`, auth: "token", handler: fields },
      { method: "GET", pattern: `${base}/items`, auth: "token", handler: listItems },
      { method: "POST", pattern: `${base}/items`, auth: "token", handler: add },
      { method: "GET", pattern: `${base}/items/{item_id}`, auth: "token", handler: getItem },
      { method: "PATCH", pattern: `${base}/items/{item_id}`, auth: "token", handler: update },
      { method: "DELETE", pattern: `${base}/items/{item_id}`, auth: "token", handler: remove },
    ];
  };
  return [...routes("org"), ...routes("user")];
}
