import type { Clock } from "../shared/clock.js";
import { StandInError } from "./errors.js";

/** The field types the stand-in models (GitHub's iteration fields are left out). */
export type ProjectFieldType = "text" | "number" | "date" | "single_select";
export type ProjectOwnerType = "org" | "user";

export interface ProjectOptionRecord {
  id: string;
  name: string;
}

export interface ProjectFieldRecord {
  id: number;
  name: string;
  /** `title` is the built-in field every project has; it is not settable through the REST API. */
  dataType: ProjectFieldType | "title";
  options: ProjectOptionRecord[];
  createdAt: number;
}

/** A field's value: text, a number, a YYYY-MM-DD date or a single-select option's id. */
export type ProjectValue = string | number;

export interface ProjectItemRecord {
  id: number;
  /** The issue's `id` (GitHub's REST API adds issues by id). */
  issueId: number;
  creator: string;
  values: Map<number, ProjectValue>;
  createdAt: number;
  updatedAt: number;
}

export interface ProjectRecord {
  id: number;
  number: number;
  owner: string;
  ownerType: ProjectOwnerType;
  title: string;
  creator: string;
  fields: ProjectFieldRecord[];
  items: ProjectItemRecord[];
  createdAt: number;
  updatedAt: number;
}

/** How a test sets up a project: its owner, and the fields people made on it. */
export interface NewProject {
  owner: string;
  ownerType?: ProjectOwnerType;
  /** Default: the next free number of that owner. */
  number?: number;
  title?: string;
  fields?: Array<{ name: string; type: ProjectFieldType; options?: string[] }>;
}

export type ProjectStore = ReturnType<typeof createProjectStore>;

/** Projects (the current kind, "projectsV2") per owner; ids come from the stand-in's one sequence. */
export function createProjectStore(clock: Clock, newId: () => number) {
  const projects: ProjectRecord[] = [];

  function find(ownerType: ProjectOwnerType, owner: string, number: number): ProjectRecord | undefined {
    return projects.find(
      (p) =>
        p.ownerType === ownerType && p.owner.toLowerCase() === owner.toLowerCase() && p.number === number,
    );
  }

  function mustFind(owner: string, number: number): ProjectRecord {
    const found = projects.find((p) => p.owner.toLowerCase() === owner.toLowerCase() && p.number === number);
    if (!found) throw new StandInError("bad_repository", `no project ${owner}/${number}`);
    return found;
  }

  function create(input: NewProject): ProjectRecord {
    const ownerType = input.ownerType ?? "org";
    const mine = projects.filter((p) => p.owner.toLowerCase() === input.owner.toLowerCase());
    const number = input.number ?? Math.max(0, ...mine.map((p) => p.number)) + 1;
    const now = clock.now();
    const field = (name: string, dataType: ProjectFieldRecord["dataType"], options: string[] = []) => ({
      id: newId(),
      name,
      dataType,
      options: options.map((o) => ({ id: newId().toString(16), name: o })),
      createdAt: now,
    });
    const project: ProjectRecord = {
      id: newId(),
      number,
      owner: input.owner,
      ownerType,
      title: input.title ?? `Project ${number}`,
      creator: input.owner,
      fields: [field("Title", "title"), ...(input.fields ?? []).map((f) => field(f.name, f.type, f.options))],
      items: [],
      createdAt: now,
      updatedAt: now,
    };
    projects.push(project);
    return project;
  }

  /** Adds an issue; a repeat answers the existing item, as GitHub documents for its GraphQL mutation. */
  function addItem(p: ProjectRecord, issueId: number, creator: string): ProjectItemRecord {
    const existing = p.items.find((i) => i.issueId === issueId);
    if (existing) return existing;
    const now = clock.now();
    const item: ProjectItemRecord = {
      id: newId(),
      issueId,
      creator,
      values: new Map(),
      createdAt: now,
      updatedAt: now,
    };
    p.items.push(item);
    p.updatedAt = now;
    return item;
  }

  function setValue(
    p: ProjectRecord,
    item: ProjectItemRecord,
    fieldId: number,
    value: ProjectValue | null,
  ): void {
    if (value === null) item.values.delete(fieldId);
    else item.values.set(fieldId, value);
    item.updatedAt = clock.now();
    p.updatedAt = item.updatedAt;
  }

  return { find, mustFind, create, addItem, setValue };
}
