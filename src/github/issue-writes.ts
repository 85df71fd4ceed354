import { z } from "zod";
import { GitHubError } from "./errors.js";
import { sendWrite, type RestContext } from "./rest-calls.js";
import { GitHubIssue, toSnapshot, type IssueSnapshot } from "./schemas.js";
import type { WriteBudget } from "./write-budget.js";

/** Per-call options of a write: give up waiting for the budget on abort or past a deadline. */
export interface WriteOptions {
  signal?: AbortSignal;
  /** Epoch ms: when the budget's next slot is later, the write is not sent (`budget_deadline`). */
  deadlineMs?: number;
}

export interface WriteDeps {
  forRepo(repo: string): Promise<RestContext>;
  budget: WriteBudget;
  managedLabel: string;
  /** Counts a write the moment it is handed to the transport. */
  countWrite(): void;
}

export interface NewIssue {
  title: string;
  body: string;
  labels: string[];
  assignees: string[];
  /** A milestone's number. */
  milestone?: number;
  /** An issue type's name; the gateway sets it from `github.issue_type` where the repository offers it. */
  type?: string;
}

export interface IssuePatch {
  title?: string;
  body?: string;
  labels?: string[];
  state?: "open" | "closed";
  stateReason?: "completed" | "not_planned" | "reopened";
  /** A milestone's number, or null to take the issue out of its milestone. */
  milestone?: number | null;
}

const CreatedComment = z.looseObject({ id: z.number().int() });

/** Every write waits for the budget first (contract: "GitHub writes are paced by github.write_budget"). */
export async function takeSlot(deps: WriteDeps, opts: WriteOptions): Promise<void> {
  if (opts.deadlineMs === undefined) {
    await deps.budget.acquire(opts.signal);
  } else if (!(await deps.budget.tryAcquireBefore(opts.deadlineMs, opts.signal))) {
    throw new GitHubError(
      "budget_deadline",
      "the write budget has no slot before the deadline; the write was not sent",
    );
  }
  deps.countWrite();
}

/** The managed label stays on every issue the connector writes: its lists and markers rely on it. */
function withManagedLabel(labels: string[], managedLabel: string): string[] {
  return labels.includes(managedLabel) ? [...labels] : [managedLabel, ...labels];
}

/** A create answered with something unreadable still happened: its outcome is unknown to us. */
function parseCreated<T>(schema: z.ZodType<T>, data: unknown, what: string): T {
  const result = schema.safeParse(data);
  if (!result.success) {
    throw new GitHubError(
      "outcome_unknown",
      `GitHub answered the ${what} create with an unreadable body; the ${what} may exist — look for it before sending again`,
    );
  }
  return result.data;
}

export async function createIssue(
  deps: WriteDeps,
  repo: string,
  input: NewIssue,
  opts: WriteOptions = {},
): Promise<IssueSnapshot> {
  const ctx = await deps.forRepo(repo);
  await takeSlot(deps, opts);
  const data = await sendWrite(
    ctx,
    "POST",
    `/repos/${repo}/issues`,
    {
      title: input.title,
      body: input.body,
      labels: withManagedLabel(input.labels, deps.managedLabel),
      assignees: input.assignees,
      ...(input.milestone === undefined ? {} : { milestone: input.milestone }),
      ...(input.type === undefined ? {} : { type: input.type }),
    },
    true,
  );
  return toSnapshot(parseCreated(GitHubIssue, data, "issue"), repo);
}

export async function updateIssue(
  deps: WriteDeps,
  repo: string,
  number: number,
  patch: IssuePatch,
  opts: WriteOptions = {},
): Promise<IssueSnapshot> {
  const ctx = await deps.forRepo(repo);
  const body: Record<string, unknown> = {};
  if (patch.title !== undefined) body["title"] = patch.title;
  if (patch.body !== undefined) body["body"] = patch.body;
  if (patch.labels !== undefined) body["labels"] = withManagedLabel(patch.labels, deps.managedLabel);
  if (patch.state !== undefined) body["state"] = patch.state;
  if (patch.stateReason !== undefined) body["state_reason"] = patch.stateReason;
  if (patch.milestone !== undefined) body["milestone"] = patch.milestone;
  await takeSlot(deps, opts);
  const data = await sendWrite(ctx, "PATCH", `/repos/${repo}/issues/${number}`, body, false);
  const issue = GitHubIssue.safeParse(data);
  if (!issue.success)
    throw new GitHubError(
      "response_invalid",
      `GitHub answered the update of ${repo}#${number} with an unexpected body`,
    );
  return toSnapshot(issue.data, repo);
}

const LabelList = z.array(z.looseObject({ name: z.string() }));

/** Adds labels without touching the others: people's labels are never replaced. Answers the labels after. */
export async function addLabels(
  deps: WriteDeps,
  repo: string,
  number: number,
  labels: string[],
  opts: WriteOptions = {},
): Promise<string[]> {
  const ctx = await deps.forRepo(repo);
  await takeSlot(deps, opts);
  const data = await sendWrite(ctx, "POST", `/repos/${repo}/issues/${number}/labels`, { labels }, false);
  const parsed = LabelList.safeParse(data);
  return parsed.success ? parsed.data.map((l) => l.name) : [];
}

/** Removes one label (`DELETE /issues/{n}/labels/{name}`); a label already gone (404) is no error. */
export async function removeLabel(
  deps: WriteDeps,
  repo: string,
  number: number,
  label: string,
  opts: WriteOptions = {},
): Promise<void> {
  const ctx = await deps.forRepo(repo);
  await takeSlot(deps, opts);
  try {
    await sendWrite(
      ctx,
      "DELETE",
      `/repos/${repo}/issues/${number}/labels/${encodeURIComponent(label)}`,
      {},
      false,
    );
  } catch (error) {
    if (error instanceof GitHubError && error.code === "not_found") return;
    throw error;
  }
}

export async function createComment(
  deps: WriteDeps,
  repo: string,
  number: number,
  body: string,
  opts: WriteOptions = {},
): Promise<{ id: number }> {
  const ctx = await deps.forRepo(repo);
  await takeSlot(deps, opts);
  const data = await sendWrite(ctx, "POST", `/repos/${repo}/issues/${number}/comments`, { body }, true);
  return { id: parseCreated(CreatedComment, data, "comment").id };
}
