import type { Config } from "../../config/index.js";
import type { RepositoryReader } from "../../github/index.js";

/**
 * Whether a repository has GitHub's sub-issues, for grouping's parent mode (contract, "Groups"):
 * where it has none, parents list their members in the checklist alone, a warning, not a failure.
 */

export interface SubIssuesResult {
  check: string;
  status: "pass" | "warn" | "skip";
  detail: string;
  hint?: string;
}

/** Whether `check` asks about sub-issues: grouping in parent mode, with a client that can ask. */
export function wantsSubIssues(config: Config, github: RepositoryReader): boolean {
  return config.grouping?.mode === "parent" && github.subIssuesOffer !== undefined;
}

export function subIssuesCheckName(repo: string): string {
  return `github sub-issues in ${repo}`;
}

/** Asks the repository (one read of its newest issue's sub-issues); a failed call throws. */
export async function subIssuesCheck(repo: string, github: RepositoryReader): Promise<SubIssuesResult> {
  const check = subIssuesCheckName(repo);
  const offer = (await github.subIssuesOffer?.(repo)) ?? null;
  if (offer === null)
    return { check, status: "skip", detail: "no issue yet to ask about; the first group's parent will tell" };
  if (offer.available)
    return { check, status: "pass", detail: "available: group members are attached to their parent" };
  return {
    check,
    status: "warn",
    detail: `unavailable (GitHub answered ${offer.status}: ${offer.message}); group parents list their members in a checklist only`,
    hint: "sub-issues need GitHub.com or a GitHub Enterprise Server release that has them",
  };
}
