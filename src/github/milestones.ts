import { z } from "zod";
import { GitHubError } from "./errors.js";
import { MAX_PAGES, type ReadDeps } from "./issue-reads.js";
import { takeSlot, type WriteDeps, type WriteOptions } from "./issue-writes.js";
import { getPage, sendWrite } from "./rest-calls.js";
import { unlessUnavailable, validationText, type Unavailable } from "./unavailable.js";

/** A milestone as the connector reads it. */
export interface Milestone {
  number: number;
  title: string;
  state: "open" | "closed";
  /** The due date as GitHub shows it (YYYY-MM-DD), or null. */
  dueOn: string | null;
  openIssues: number;
  closedIssues: number;
}

export interface NewMilestone {
  title: string;
  /** A calendar date, YYYY-MM-DD. */
  dueOn?: string;
  description?: string;
}

export interface MilestonePatch {
  title?: string;
  dueOn?: string | null;
  description?: string;
  state?: "open" | "closed";
}

export type MilestoneList = { available: true; milestones: Milestone[] } | Unavailable;
/** `existed`: GitHub already had a milestone of that title (422 `already_exists`); it is answered instead. */
export type MilestoneCreated = { available: true; milestone: Milestone; existed: boolean } | Unavailable;
export type MilestoneUpdated = { available: true; milestone: Milestone } | Unavailable;

const GitHubMilestone = z.looseObject({
  number: z.number().int(),
  title: z.string(),
  state: z.string(),
  due_on: z.string().nullable().optional(),
  open_issues: z.number().int().optional(),
  closed_issues: z.number().int().optional(),
});
type GitHubMilestone = z.infer<typeof GitHubMilestone>;
const GitHubMilestoneList = z.array(GitHubMilestone);

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The `due_on` for a date: 12:00 UTC, the same calendar date in every US time zone GitHub shows it in. */
function dueOnFor(date: string): string {
  if (!DATE.test(date) || Number.isNaN(Date.parse(`${date}T12:00:00Z`)))
    throw new GitHubError("validation", `"${date}" is not a date in YYYY-MM-DD form`);
  return `${date}T12:00:00Z`;
}

/** GitHub answers `due_on` as midnight US Pacific time, whose UTC calendar date is the date itself. */
function toMilestone(m: GitHubMilestone): Milestone {
  return {
    number: m.number,
    title: m.title,
    state: m.state === "closed" ? "closed" : "open",
    dueOn: typeof m.due_on === "string" ? m.due_on.slice(0, 10) : null,
    openIssues: m.open_issues ?? 0,
    closedIssues: m.closed_issues ?? 0,
  };
}

function parseMilestone(data: unknown, what: string): Milestone {
  const parsed = GitHubMilestone.safeParse(data);
  if (!parsed.success)
    throw new GitHubError("response_invalid", `GitHub answered ${what} with an unexpected body`);
  return toMilestone(parsed.data);
}

/** `GET /repos/{o}/{r}/milestones?state=all`, every page. */
export async function listMilestones(deps: ReadDeps, repo: string): Promise<MilestoneList> {
  const ctx = await deps.forRepo(repo);
  return unlessUnavailable(async () => {
    const milestones: Milestone[] = [];
    let page = await getPage(ctx, `/repos/${repo}/milestones`, { state: "all", per_page: 100 });
    for (let count = 1; count <= MAX_PAGES; count++) {
      const parsed = GitHubMilestoneList.safeParse(page.data);
      if (!parsed.success)
        throw new GitHubError(
          "response_invalid",
          `GitHub answered the milestones of ${repo} with an unexpected body`,
        );
      milestones.push(...parsed.data.map(toMilestone));
      const next = page.links.next;
      if (next === undefined) return { available: true as const, milestones };
      page = await getPage(ctx, next);
    }
    throw new GitHubError("http", `GitHub's milestone list did not end after ${MAX_PAGES} pages`);
  });
}

/** Creates a milestone; a title GitHub already has answers that one with `existed: true` (safe to repeat). */
export async function createMilestone(
  writeDeps: WriteDeps,
  readDeps: ReadDeps,
  repo: string,
  input: NewMilestone,
  opts: WriteOptions = {},
): Promise<MilestoneCreated> {
  const body: Record<string, unknown> = { title: input.title };
  if (input.dueOn !== undefined) body["due_on"] = dueOnFor(input.dueOn);
  if (input.description !== undefined) body["description"] = input.description;
  const ctx = await writeDeps.forRepo(repo);
  await takeSlot(writeDeps, opts);
  return unlessUnavailable(async (): Promise<MilestoneCreated> => {
    try {
      const data = await sendWrite(ctx, "POST", `/repos/${repo}/milestones`, body, true);
      return { available: true, milestone: parseMilestone(data, "the milestone create"), existed: false };
    } catch (error) {
      const exists =
        error instanceof GitHubError &&
        error.status === 422 &&
        (error.request?.errors ?? []).some((e) => e.code === "already_exists");
      if (!exists) throw error;
      const list = await listMilestones(readDeps, repo);
      if (!list.available) return list;
      const wanted = input.title.toLowerCase();
      const found = list.milestones.find((m) => m.title.toLowerCase() === wanted);
      if (found === undefined) throw new GitHubError("validation", validationText(error));
      return { available: true, milestone: found, existed: true };
    }
  });
}

/** `PATCH /repos/{o}/{r}/milestones/{number}`. */
export async function updateMilestone(
  deps: WriteDeps,
  repo: string,
  number: number,
  patch: MilestonePatch,
  opts: WriteOptions = {},
): Promise<MilestoneUpdated> {
  const body: Record<string, unknown> = {};
  if (patch.title !== undefined) body["title"] = patch.title;
  if (patch.dueOn !== undefined) body["due_on"] = patch.dueOn === null ? null : dueOnFor(patch.dueOn);
  if (patch.description !== undefined) body["description"] = patch.description;
  if (patch.state !== undefined) body["state"] = patch.state;
  const ctx = await deps.forRepo(repo);
  await takeSlot(deps, opts);
  return unlessUnavailable(async () => {
    const data = await sendWrite(ctx, "PATCH", `/repos/${repo}/milestones/${number}`, body, false);
    return { available: true as const, milestone: parseMilestone(data, `the update of milestone ${number}`) };
  });
}
