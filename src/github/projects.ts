import type { z } from "zod";
import { GitHubError, parseResponse } from "./errors.js";
import { MAX_PAGES, type ReadDeps } from "./issue-reads.js";
import { takeSlot, type WriteDeps, type WriteOptions } from "./issue-writes.js";
import {
  GitHubProject,
  GitHubProjectFieldList,
  GitHubProjectItem,
  GitHubProjectItemList,
  toProjectField,
  toProjectItem,
  type ProjectField,
  type ProjectFieldValue,
  type ProjectItem,
} from "./project-schemas.js";
import { getPage, sendWrite, type Query, type RestContext } from "./rest-calls.js";
import { unlessUnavailable, validationText, type Unavailable } from "./unavailable.js";

/** `github.project` as configured: an owner's project number, and a repository whose credentials act on it. */
export interface ProjectRef {
  owner: string;
  number: number;
  /** `owner/name` of a configured repository: its token or App installation serves the project. */
  via: string;
}

/** A project found: whether its owner is an organization or a user decides its API path. */
export interface Project extends ProjectRef {
  ownerType: "org" | "user";
  id: number;
  nodeId: string;
  title: string;
}

export type ProjectLookup = { available: true; project: Project } | Unavailable;
export type ProjectFields = { available: true; fields: ProjectField[] } | Unavailable;
export type ProjectItemAdded = { available: true; item: ProjectItem } | Unavailable;
export type ProjectItemFound = { available: true; item: ProjectItem | null } | Unavailable;
export type ProjectItemUpdated =
  | { available: true; outcome: "updated" }
  | { available: true; outcome: "refused"; message: string }
  | Unavailable;

/** One field's new value: text and dates as text, numbers as numbers, an option by its id, null clears. */
export interface ProjectFieldChange {
  fieldId: number;
  value: ProjectFieldValue;
}

const PER_PAGE = 100;

const basePath = (p: { owner: string; number: number }, ownerType: "org" | "user"): string =>
  `/${ownerType === "org" ? "orgs" : "users"}/${encodeURIComponent(p.owner)}/projectsV2/${p.number}`;

/** Every page of a cursor-paged project list, following `Link: rel="next"` (GitHub pages them by cursor). */
async function allPages<T>(
  ctx: RestContext,
  url: string,
  query: Query,
  schema: z.ZodType<T[]>,
  what: string,
) {
  const out: T[] = [];
  let page = await getPage(ctx, url, query);
  for (let count = 1; count <= MAX_PAGES; count++) {
    out.push(...parseResponse(schema, page.data, what));
    const next = page.links.next;
    if (next === undefined) return out;
    page = await getPage(ctx, next);
  }
  throw new GitHubError("http", `GitHub's ${what} did not end after ${MAX_PAGES} pages`);
}

/** The project by organisation, then by user; 404, 403 or 410 on both is `{ available: false }`. */
export async function getProject(deps: ReadDeps, ref: ProjectRef): Promise<ProjectLookup> {
  const ctx = await deps.forRepo(ref.via);
  const read = async (ownerType: "org" | "user"): Promise<ProjectLookup> => {
    const page = await getPage(ctx, basePath(ref, ownerType));
    const p = parseResponse(GitHubProject, page.data, "project");
    return {
      available: true,
      project: { ...ref, ownerType, id: p.id, nodeId: p.node_id, title: p.title },
    };
  };
  const asOrg = await unlessUnavailable(() => read("org"));
  if (asOrg.available || asOrg.status !== 404) return asOrg;
  return unlessUnavailable(() => read("user"));
}

/** `GET …/fields`, every page: how the configured field names are found (once). */
export async function listProjectFields(deps: ReadDeps, project: Project): Promise<ProjectFields> {
  const ctx = await deps.forRepo(project.via);
  return unlessUnavailable(async () => {
    const url = `${basePath(project, project.ownerType)}/fields`;
    const fields = await allPages(ctx, url, { per_page: PER_PAGE }, GitHubProjectFieldList, "project fields");
    return { available: true as const, fields: fields.map(toProjectField) };
  });
}

/**
 * Adds an issue to a project: a write sent once. GitHub's REST description does not promise that a
 * repeated add answers the existing item, so after an unknown outcome ask {@link findProjectItem}.
 */
export async function addProjectItem(
  deps: WriteDeps,
  project: Project,
  issueId: number,
  opts: WriteOptions = {},
): Promise<ProjectItemAdded> {
  const ctx = await deps.forRepo(project.via);
  await takeSlot(deps, opts);
  return unlessUnavailable(async () => {
    const url = `${basePath(project, project.ownerType)}/items`;
    const data = await sendWrite(ctx, "POST", url, { type: "Issue", id: issueId }, true);
    return {
      available: true as const,
      item: toProjectItem(parseResponse(GitHubProjectItem, data, "project item")),
    };
  });
}

/** The project's item for an issue, or null, by listing every page: for recovery, not every cycle. */
export async function findProjectItem(
  deps: ReadDeps,
  project: Project,
  issueId: number,
  fieldIds: readonly number[] = [],
): Promise<ProjectItemFound> {
  const ctx = await deps.forRepo(project.via);
  return unlessUnavailable(async () => {
    const query: Query = {
      per_page: PER_PAGE,
      ...(fieldIds.length > 0 ? { fields: fieldIds.join(",") } : {}),
    };
    let page = await getPage(ctx, `${basePath(project, project.ownerType)}/items`, query);
    for (let count = 1; count <= MAX_PAGES; count++) {
      const items = parseResponse(GitHubProjectItemList, page.data, "project items").map(toProjectItem);
      const found = items.find((item) => item.issueId === issueId);
      if (found !== undefined) return { available: true as const, item: found };
      const next = page.links.next;
      if (next === undefined) return { available: true as const, item: null };
      page = await getPage(ctx, next);
    }
    throw new GitHubError("http", `GitHub's project item list did not end after ${MAX_PAGES} pages`);
  });
}

/** `GET …/items/{item_id}` with the values of `fieldIds`: what the board shows now. */
export async function getProjectItem(
  deps: ReadDeps,
  project: Project,
  itemId: number,
  fieldIds: readonly number[] = [],
): Promise<ProjectItemFound> {
  const ctx = await deps.forRepo(project.via);
  return unlessUnavailable(async () => {
    const query: Query = fieldIds.length > 0 ? { fields: fieldIds.join(",") } : {};
    const page = await getPage(ctx, `${basePath(project, project.ownerType)}/items/${itemId}`, query);
    return {
      available: true as const,
      item: toProjectItem(parseResponse(GitHubProjectItem, page.data, "project item")),
    };
  });
}

/** Every changed field of one item in one PATCH (idempotent); a 422 is `refused`, not thrown. */
export async function updateProjectItemFields(
  deps: WriteDeps,
  project: Project,
  itemId: number,
  changes: readonly ProjectFieldChange[],
  opts: WriteOptions = {},
): Promise<ProjectItemUpdated> {
  if (changes.length === 0) return { available: true, outcome: "updated" };
  const ctx = await deps.forRepo(project.via);
  await takeSlot(deps, opts);
  return unlessUnavailable(async (): Promise<ProjectItemUpdated> => {
    const url = `${basePath(project, project.ownerType)}/items/${itemId}`;
    try {
      await sendWrite(
        ctx,
        "PATCH",
        url,
        { fields: changes.map((c) => ({ id: c.fieldId, value: c.value })) },
        false,
      );
      return { available: true, outcome: "updated" };
    } catch (error) {
      if (!(error instanceof GitHubError) || error.status !== 422) throw error;
      return { available: true, outcome: "refused", message: validationText(error) };
    }
  });
}
