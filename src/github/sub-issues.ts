import { z } from "zod";
import { GitHubError } from "./errors.js";
import { MAX_PAGES, type ReadDeps } from "./issue-reads.js";
import { takeSlot, type WriteDeps, type WriteOptions } from "./issue-writes.js";
import { getPage, sendWrite } from "./rest-calls.js";
import { GitHubIssue, isPullRequest, toSnapshot, type IssueSnapshot } from "./schemas.js";
import { FEATURE_OFF, unlessUnavailable, validationText, type Unavailable } from "./unavailable.js";

/** What an attach came to: GitHub's 422 reasons told apart (another parent, already attached, full, refused). */
export type AttachResult =
  | { available: true; outcome: "attached" }
  | {
      available: true;
      outcome: "already_attached" | "has_other_parent" | "parent_full" | "refused";
      message: string;
    }
  | Unavailable;

export type DetachResult = { available: true; removed: boolean } | Unavailable;

export type SubIssueList = { available: true; issues: IssueSnapshot[] } | Unavailable;

/** The 422 texts of GitHub's sub-issue rules. */
const REFUSALS: Array<[RegExp, "already_attached" | "has_other_parent" | "parent_full"]> = [
  [/duplicate sub-issues/i, "already_attached"],
  [/only have one parent/i, "has_other_parent"],
  [/more than \d+ sub-issues|sub-issue limit|maximum number of sub-issues/i, "parent_full"],
];

/** Attaches a child by its issue id (not number); a repeat answers 422, so an unknown outcome is safe to resend. */
export async function addSubIssue(
  deps: WriteDeps,
  repo: string,
  parentNumber: number,
  childId: number,
  opts: WriteOptions & { replaceParent?: boolean } = {},
): Promise<AttachResult> {
  const ctx = await deps.forRepo(repo);
  await takeSlot(deps, opts);
  return unlessUnavailable(async (): Promise<AttachResult> => {
    try {
      await sendWrite(
        ctx,
        "POST",
        `/repos/${repo}/issues/${parentNumber}/sub_issues`,
        { sub_issue_id: childId, ...(opts.replaceParent === true ? { replace_parent: true } : {}) },
        false,
      );
      return { available: true, outcome: "attached" };
    } catch (error) {
      if (!(error instanceof GitHubError) || error.status !== 422) throw error;
      const message = validationText(error);
      const found = REFUSALS.find(([pattern]) => pattern.test(message));
      // A 422 that says the feature is off is "not available" (unlessUnavailable answers it).
      if (found === undefined && FEATURE_OFF.test(message)) throw error;
      return { available: true, outcome: found?.[1] ?? "refused", message };
    }
  });
}

/** `DELETE /repos/{o}/{r}/issues/{parent}/sub_issue`; a child that is not under it is `removed: false`. */
export async function removeSubIssue(
  deps: WriteDeps,
  repo: string,
  parentNumber: number,
  childId: number,
  opts: WriteOptions = {},
): Promise<DetachResult> {
  const ctx = await deps.forRepo(repo);
  await takeSlot(deps, opts);
  return unlessUnavailable(async () => {
    await sendWrite(
      ctx,
      "DELETE",
      `/repos/${repo}/issues/${parentNumber}/sub_issue`,
      { sub_issue_id: childId },
      false,
    );
    return { available: true as const, removed: true };
  });
}

const IssueList = z.array(GitHubIssue);

/** `GET …/sub_issues`, every page (GitHub allows 100 sub-issues, so one page of 100 in practice). */
export async function listSubIssues(
  deps: ReadDeps,
  repo: string,
  parentNumber: number,
): Promise<SubIssueList> {
  const ctx = await deps.forRepo(repo);
  return unlessUnavailable(async () => {
    const issues: IssueSnapshot[] = [];
    let page = await getPage(ctx, `/repos/${repo}/issues/${parentNumber}/sub_issues`, { per_page: 100 });
    for (let count = 1; count <= MAX_PAGES; count++) {
      const parsed = IssueList.safeParse(page.data);
      if (!parsed.success)
        throw new GitHubError(
          "response_invalid",
          `GitHub answered the sub-issues of ${repo}#${parentNumber} with an unexpected body`,
        );
      for (const issue of parsed.data) if (!isPullRequest(issue)) issues.push(toSnapshot(issue, repo));
      const next = page.links.next;
      if (next === undefined) return { available: true as const, issues };
      page = await getPage(ctx, next);
    }
    throw new GitHubError("http", `GitHub's sub-issue list did not end after ${MAX_PAGES} pages`);
  });
}

/** The parent issue, or null: GitHub's 404 means no parent, or no sub-issues, alike. */
export async function getParent(deps: ReadDeps, repo: string, number: number): Promise<IssueSnapshot | null> {
  const ctx = await deps.forRepo(repo);
  try {
    const page = await getPage(ctx, `/repos/${repo}/issues/${number}/parent`);
    const parsed = GitHubIssue.safeParse(page.data);
    if (!parsed.success)
      throw new GitHubError(
        "response_invalid",
        `GitHub answered the parent of ${repo}#${number} with an unexpected body`,
      );
    return toSnapshot(parsed.data, repo);
  } catch (error) {
    if (error instanceof GitHubError && (error.status === 404 || error.status === 410)) return null;
    throw error;
  }
}
